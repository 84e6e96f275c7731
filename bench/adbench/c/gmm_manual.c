/* gmm_manual.c -- hand-written analytic gradient of the ADBench GMM objective
   (the "manual" column of the benchmark; no AD involved).

   Per point x_i and component k, with xc = x_i - mu_k and z = Q_k xc:
     main_k = alpha_k + sum_j q_kj - |z|^2 / 2,   w_k = softmax_k(main)
     d main_k / d alpha_k = 1
     d main_k / d q_kj    = 1 - z_j * exp(q_kj) * xc_j
     d main_k / d L_rc    = -z_r * xc_c            (strictly lower entries)
     d main_k / d mu_k    = Q_k^T z
   and each point contributes w_k times these. The -n*logsumexp(alpha) term adds
   -n * softmax(alpha); the Wishart prior adds gamma^2 exp(2 q) - m and gamma^2 l. */
#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <string.h>

#include "gmm.h"

static double log_gamma_distrib(double a, int p)
{
    double out = 0.25 * p * (p - 1) * log(M_PI);
    for (int j = 1; j <= p; j++)
        out += lgamma(a + 0.5 * (1 - j));
    return out;
}

void gmm_objective_grad_manual(int d, int k, int n, const double *alphas,
                               const double *means, const double *icf, const double *x,
                               double wishart_gamma, int wishart_m, double *err,
                               double *d_alphas, double *d_means, double *d_icf)
{
    const int icf_sz = d * (d + 1) / 2;
    double *qdiags = malloc(sizeof(double) * d * k);
    double *sum_qs = malloc(sizeof(double) * k);
    double *xc = malloc(sizeof(double) * d * k);
    double *z = malloc(sizeof(double) * d * k);
    double *main_term = malloc(sizeof(double) * k);

    memset(d_alphas, 0, sizeof(double) * k);
    memset(d_means, 0, sizeof(double) * k * d);
    memset(d_icf, 0, sizeof(double) * k * icf_sz);

    for (int ik = 0; ik < k; ik++) {
        sum_qs[ik] = 0.0;
        for (int j = 0; j < d; j++) {
            sum_qs[ik] += icf[ik * icf_sz + j];
            qdiags[ik * d + j] = exp(icf[ik * icf_sz + j]);
        }
    }

    double slse = 0.0;
    for (int ix = 0; ix < n; ix++) {
        const double *xi = &x[ix * d];
        double mx = -INFINITY;
        for (int ik = 0; ik < k; ik++) {
            double *xck = &xc[ik * d];
            double *zk = &z[ik * d];
            const double *qd = &qdiags[ik * d];
            const double *l = &icf[ik * icf_sz + d];
            for (int j = 0; j < d; j++) {
                xck[j] = xi[j] - means[ik * d + j];
                zk[j] = qd[j] * xck[j];
            }
            int li = 0;
            for (int col = 0; col < d; col++)
                for (int row = col + 1; row < d; row++)
                    zk[row] += l[li++] * xck[col];
            double sq = 0.0;
            for (int j = 0; j < d; j++)
                sq += zk[j] * zk[j];
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
            if (main_term[ik] > mx)
                mx = main_term[ik];
        }
        double s = 0.0;
        for (int ik = 0; ik < k; ik++) {
            main_term[ik] = exp(main_term[ik] - mx);
            s += main_term[ik];
        }
        slse += log(s) + mx;
        for (int ik = 0; ik < k; ik++) {
            const double wk = main_term[ik] / s;
            const double *xck = &xc[ik * d];
            const double *zk = &z[ik * d];
            const double *qd = &qdiags[ik * d];
            const double *l = &icf[ik * icf_sz + d];
            double *gq = &d_icf[ik * icf_sz];
            double *gl = &d_icf[ik * icf_sz + d];
            double *gm = &d_means[ik * d];
            d_alphas[ik] += wk;
            for (int j = 0; j < d; j++) {
                gq[j] += wk * (1.0 - zk[j] * qd[j] * xck[j]);
                gm[j] += wk * qd[j] * zk[j];
            }
            int li = 0;
            for (int col = 0; col < d; col++) {
                double acc = 0.0;
                for (int row = col + 1; row < d; row++) {
                    gl[li] -= wk * zk[row] * xck[col];
                    acc += l[li] * zk[row];
                    li++;
                }
                gm[col] += wk * acc;
            }
        }
    }

    /* -n * logsumexp(alphas) */
    double amx = alphas[0];
    for (int ik = 1; ik < k; ik++)
        if (alphas[ik] > amx)
            amx = alphas[ik];
    double asum = 0.0;
    for (int ik = 0; ik < k; ik++)
        asum += exp(alphas[ik] - amx);
    const double lse_alphas = log(asum) + amx;
    for (int ik = 0; ik < k; ik++)
        d_alphas[ik] -= n * exp(alphas[ik] - lse_alphas);

    /* Wishart prior */
    const int np = d + wishart_m + 1;
    const double c = np * d * (log(wishart_gamma) - 0.5 * log(2.0))
                     - log_gamma_distrib(0.5 * np, d);
    const double g2 = wishart_gamma * wishart_gamma;
    double prior = 0.0;
    for (int ik = 0; ik < k; ik++) {
        double frob = 0.0;
        for (int j = 0; j < d; j++) {
            const double q2 = qdiags[ik * d + j] * qdiags[ik * d + j];
            frob += q2;
            d_icf[ik * icf_sz + j] += g2 * q2 - wishart_m;
        }
        for (int j = d; j < icf_sz; j++) {
            frob += icf[ik * icf_sz + j] * icf[ik * icf_sz + j];
            d_icf[ik * icf_sz + j] += g2 * icf[ik * icf_sz + j];
        }
        prior += 0.5 * g2 * frob - wishart_m * sum_qs[ik];
    }

    *err = -n * d * 0.5 * log(2 * M_PI) + slse - n * lse_alphas + prior - k * c;

    free(qdiags);
    free(sum_qs);
    free(xc);
    free(z);
    free(main_term);
}
