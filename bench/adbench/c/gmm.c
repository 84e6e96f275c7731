/* gmm.c -- ADBench GMM objective, written from the definition in
   ../shared/adbench/README.md. Pure function of its inputs. */
#include "gmm.h"

#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double log_sum_exp(int n, const double *v)
{
    double mx = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > mx)
            mx = v[i];
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(v[i] - mx);
    return log(s) + mx;
}

/* log of the multivariate gamma function Gamma_p(a) */
static double log_gamma_distrib(double a, int p)
{
    double out = 0.25 * p * (p - 1) * log(M_PI);
    for (int j = 1; j <= p; j++)
        out += lgamma(a + 0.5 * (1 - j));
    return out;
}

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, double wishart_gamma, int wishart_m,
                   double *err)
{
    const int icf_sz = d * (d + 1) / 2;
    double *qdiags = malloc(sizeof(double) * d * k);
    double *sum_qs = malloc(sizeof(double) * k);
    double *xc = malloc(sizeof(double) * d);
    double *qxc = malloc(sizeof(double) * d);
    double *main_term = malloc(sizeof(double) * k);

    for (int ik = 0; ik < k; ik++) {
        sum_qs[ik] = 0.0;
        for (int j = 0; j < d; j++) {
            sum_qs[ik] += icf[ik * icf_sz + j];
            qdiags[ik * d + j] = exp(icf[ik * icf_sz + j]);
        }
    }

    double slse = 0.0;
    for (int ix = 0; ix < n; ix++) {
        for (int ik = 0; ik < k; ik++) {
            for (int j = 0; j < d; j++)
                xc[j] = x[ix * d + j] - means[ik * d + j];
            /* Q_k * xc: diagonal, then the strictly lower part column by column */
            for (int j = 0; j < d; j++)
                qxc[j] = qdiags[ik * d + j] * xc[j];
            const double *l = &icf[ik * icf_sz + d];
            int li = 0;
            for (int col = 0; col < d; col++)
                for (int row = col + 1; row < d; row++)
                    qxc[row] += l[li++] * xc[col];
            double sq = 0.0;
            for (int j = 0; j < d; j++)
                sq += qxc[j] * qxc[j];
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
        }
        slse += log_sum_exp(k, main_term);
    }

    const double lse_alphas = log_sum_exp(k, alphas);
    const double constant = -n * d * 0.5 * log(2 * M_PI);

    /* Wishart prior */
    const int np = d + wishart_m + 1;
    const double c = np * d * (log(wishart_gamma) - 0.5 * log(2.0))
                     - log_gamma_distrib(0.5 * np, d);
    double prior = 0.0;
    for (int ik = 0; ik < k; ik++) {
        double frob = 0.0;
        for (int j = 0; j < d; j++)
            frob += qdiags[ik * d + j] * qdiags[ik * d + j];
        for (int j = d; j < icf_sz; j++)
            frob += icf[ik * icf_sz + j] * icf[ik * icf_sz + j];
        prior += 0.5 * wishart_gamma * wishart_gamma * frob - wishart_m * sum_qs[ik];
    }

    *err = constant + slse - n * lse_alphas + prior - k * c;

    free(qdiags);
    free(sum_qs);
    free(xc);
    free(qxc);
    free(main_term);
}
