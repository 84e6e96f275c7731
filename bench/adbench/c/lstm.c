/* lstm.c -- ADBench diagonal LSTM loss, written from the definition in
   ../shared/adbench/README.md. The state is copied on entry, so the objective is a pure
   function of its inputs. */
#include "lstm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* one layer: weight = [W_f, W_i, W_o, W_c], bias likewise (b each) */
static void lstm_model(int b, const double *weight, const double *bias, double *hidden,
                       double *cell, const double *input)
{
    for (int i = 0; i < b; i++) {
        const double f = sigmoid(input[i] * weight[i] + bias[i]);
        const double in = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
        const double o = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
        const double g = tanh(hidden[i] * weight[3 * b + i] + bias[3 * b + i]);
        cell[i] = cell[i] * f + in * g;
        hidden[i] = o * tanh(cell[i]);
    }
}

static void lstm_predict(int l, int b, const double *w, const double *w2, double *s,
                         const double *x, double *y)
{
    for (int i = 0; i < b; i++)
        y[i] = x[i] * w2[i];
    const double *xp = y;
    for (int layer = 0; layer < l; layer++) {
        double *hidden = &s[2 * layer * b];
        lstm_model(b, &w[8 * layer * b], &w[8 * layer * b + 4 * b], hidden,
                   &s[2 * layer * b + b], xp);
        xp = hidden;
    }
    for (int i = 0; i < b; i++)
        y[i] = xp[i] * w2[b + i] + w2[2 * b + i];
}

void lstm_objective(int l, int c, int b, const double *main_params,
                    const double *extra_params, double *state, const double *sequence,
                    double *loss)
{
    double *s = malloc(sizeof(double) * 2 * l * b);
    double *ypred = malloc(sizeof(double) * b);
    memcpy(s, state, sizeof(double) * 2 * l * b);

    double total = 0.0;
    for (int t = 0; t < c - 1; t++) {
        lstm_predict(l, b, main_params, extra_params, s, &sequence[t * b], ypred);
        double sum = 0.0;
        for (int i = 0; i < b; i++)
            sum += exp(ypred[i]);
        const double lse = log(sum + 2.0);
        const double *goal = &sequence[(t + 1) * b];
        for (int i = 0; i < b; i++)
            total += goal[i] * (ypred[i] - lse);
    }
    *loss = -total / ((c - 1) * b);

    free(s);
    free(ypred);
}
