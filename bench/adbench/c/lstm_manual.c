/* lstm_manual.c -- hand-written analytic gradient of the ADBench LSTM loss (the
   "manual" column of the benchmark; no AD involved). A forward pass records every
   layer's gates and states; a backward pass through time carries the adjoints of the
   hidden and cell states of each layer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lstm.h"

/* per (time step, layer) record, each entry b doubles */
enum { R_HPREV, R_CPREV, R_F, R_I, R_O, R_G, R_TC, R_HNEW, R_COUNT };

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

void lstm_objective_grad_manual(int l, int c, int b, const double *main_params,
                                const double *extra_params, const double *state,
                                const double *sequence, double *loss,
                                double *d_main_params, double *d_extra_params)
{
    const int steps = c - 1;
    const size_t rec_sz = (size_t)R_COUNT * b;
    double *rec = malloc(sizeof(double) * rec_sz * (size_t)(steps > 0 ? steps : 1) * l);
    double *s = malloc(sizeof(double) * 2 * l * b);
    double *x0 = malloc(sizeof(double) * b);
    double *y = malloc(sizeof(double) * b);
    double *dh = calloc((size_t)l * b, sizeof(double));
    double *dc = calloc((size_t)l * b, sizeof(double));
    double *dup = malloc(sizeof(double) * b); /* adjoint flowing down into a layer's output */
    const double *in_w = extra_params;
    const double *out_w = &extra_params[b];
    const double *out_b = &extra_params[2 * b];
    memcpy(s, state, sizeof(double) * 2 * l * b);
    memset(d_main_params, 0, sizeof(double) * 8 * l * b);
    memset(d_extra_params, 0, sizeof(double) * 3 * b);

    /* forward, recording */
    double total = 0.0;
    for (int t = 0; t < steps; t++) {
        const double *xt = &sequence[t * b];
        for (int j = 0; j < b; j++)
            x0[j] = xt[j] * in_w[j];
        const double *input = x0;
        for (int layer = 0; layer < l; layer++) {
            const double *w = &main_params[8 * layer * b];
            const double *bias = &w[4 * b];
            double *h = &s[2 * layer * b];
            double *cs = &s[2 * layer * b + b];
            double *r = &rec[((size_t)t * l + layer) * rec_sz];
            for (int j = 0; j < b; j++) {
                const double f = sigmoid(input[j] * w[j] + bias[j]);
                const double in = sigmoid(h[j] * w[b + j] + bias[b + j]);
                const double o = sigmoid(input[j] * w[2 * b + j] + bias[2 * b + j]);
                const double g = tanh(h[j] * w[3 * b + j] + bias[3 * b + j]);
                r[R_HPREV * b + j] = h[j];
                r[R_CPREV * b + j] = cs[j];
                r[R_F * b + j] = f;
                r[R_I * b + j] = in;
                r[R_O * b + j] = o;
                r[R_G * b + j] = g;
                cs[j] = cs[j] * f + in * g;
                const double tc = tanh(cs[j]);
                r[R_TC * b + j] = tc;
                h[j] = o * tc;
                r[R_HNEW * b + j] = h[j];
            }
            input = h;
        }
        double sum = 0.0;
        for (int j = 0; j < b; j++) {
            y[j] = input[j] * out_w[j] + out_b[j];
            sum += exp(y[j]);
        }
        const double lse = log(sum + 2.0);
        const double *goal = &sequence[(t + 1) * b];
        for (int j = 0; j < b; j++)
            total += goal[j] * (y[j] - lse);
    }
    const double count = (double)steps * b;
    *loss = -total / count;

    /* backward through time */
    const double dtotal = -1.0 / count;
    double *d_in_w = d_extra_params;
    double *d_out_w = &d_extra_params[b];
    double *d_out_b = &d_extra_params[2 * b];
    for (int t = steps - 1; t >= 0; t--) {
        const double *goal = &sequence[(t + 1) * b];
        const double *htop = &rec[((size_t)t * l + (l - 1)) * rec_sz + R_HNEW * b];
        double sum = 0.0, gsum = 0.0;
        for (int j = 0; j < b; j++) {
            y[j] = htop[j] * out_w[j] + out_b[j];
            sum += exp(y[j]);
            gsum += goal[j];
        }
        sum += 2.0;
        for (int j = 0; j < b; j++) {
            const double dy = dtotal * (goal[j] - gsum * exp(y[j]) / sum);
            d_out_w[j] += dy * htop[j];
            d_out_b[j] += dy;
            dup[j] = dy * out_w[j];
        }
        for (int layer = l - 1; layer >= 0; layer--) {
            const double *w = &main_params[8 * layer * b];
            double *dw = &d_main_params[8 * layer * b];
            double *db = &dw[4 * b];
            const double *r = &rec[((size_t)t * l + layer) * rec_sz];
            const double *input = layer == 0 ? NULL : &rec[((size_t)t * l + layer - 1) * rec_sz + R_HNEW * b];
            double *dhl = &dh[layer * b];
            double *dcl = &dc[layer * b];
            for (int j = 0; j < b; j++) {
                const double xin = layer == 0 ? sequence[t * b + j] * in_w[j] : input[j];
                const double f = r[R_F * b + j], in = r[R_I * b + j];
                const double o = r[R_O * b + j], g = r[R_G * b + j];
                const double tc = r[R_TC * b + j], hp = r[R_HPREV * b + j];
                const double dhn = dhl[j] + dup[j];
                const double dcn = dcl[j] + dhn * o * (1.0 - tc * tc);
                const double dpo = dhn * tc * o * (1.0 - o);
                const double dpf = dcn * r[R_CPREV * b + j] * f * (1.0 - f);
                const double dpi = dcn * g * in * (1.0 - in);
                const double dpg = dcn * in * (1.0 - g * g);
                dcl[j] = dcn * f;
                dw[j] += dpf * xin;
                db[j] += dpf;
                dw[b + j] += dpi * hp;
                db[b + j] += dpi;
                dw[2 * b + j] += dpo * xin;
                db[2 * b + j] += dpo;
                dw[3 * b + j] += dpg * hp;
                db[3 * b + j] += dpg;
                dhl[j] = dpi * w[b + j] + dpg * w[3 * b + j];
                const double dxin = dpf * w[j] + dpo * w[2 * b + j];
                if (layer == 0)
                    d_in_w[j] += dxin * sequence[t * b + j];
                else
                    dup[j] = dxin;
            }
        }
    }

    free(rec);
    free(s);
    free(x0);
    free(y);
    free(dh);
    free(dc);
    free(dup);
}
