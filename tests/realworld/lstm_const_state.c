/* An LSTM in the style of ADBench's C reference (lstm_objective), differentiated the
   way Enzyme's own LSTM benchmark calls it: the state buffer is passed enzyme_const
   although the objective writes the hidden and cell states into it and reads them back
   at the next time step (runtime activity). irgrad gives the state a zeroed shadow of its
   own for the call: the gradient is exact and the caller's state gets no derivative.
   Checked against central differences, and forward against reverse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_const, enzyme_dup, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double logsumexp(const double *vect, int sz) {
  double sum = 0.0;
  for (int i = 0; i < sz; i++) sum += exp(vect[i]);
  sum += 2;
  return log(sum);
}
static void lstm_model(int hsize, const double *weight, const double *bias, double *hidden,
                       double *cell, const double *input) {
  double *gates = (double *)malloc(4 * hsize * sizeof(double));
  double *forget = &gates[0], *ingate = &gates[hsize], *outgate = &gates[2 * hsize],
         *change = &gates[3 * hsize];
  for (int i = 0; i < hsize; i++) {
    forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
    ingate[i] = sigmoid(hidden[i] * weight[hsize + i] + bias[hsize + i]);
    outgate[i] = sigmoid(input[i] * weight[2 * hsize + i] + bias[2 * hsize + i]);
    change[i] = tanh(hidden[i] * weight[3 * hsize + i] + bias[3 * hsize + i]);
  }
  for (int i = 0; i < hsize; i++) cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
  for (int i = 0; i < hsize; i++) hidden[i] = outgate[i] * tanh(cell[i]);
  free(gates);
}
static void lstm_predict(int l, int b, const double *w, const double *w2, double *s,
                         const double *x, double *x2) {
  for (int i = 0; i < b; i++) x2[i] = x[i] * w2[i];
  double *xp = x2;
  for (int i = 0; i <= 2 * l * b - 1; i += 2 * b) {
    lstm_model(b, &w[i * 4], &w[(i + b) * 4], &s[i], &s[i + b], xp);
    xp = &s[i];
  }
  for (int i = 0; i < b; i++) x2[i] = xp[i] * w2[b + i] + w2[2 * b + i];
}
void lstm_objective(int l, int c, int b, const double *main_params,
                    const double *extra_params, double *state, const double *sequence,
                    double *loss) {
  double total = 0.0;
  int count = 0;
  const double *input = &sequence[0];
  double *ypred = (double *)malloc(b * sizeof(double));
  double *ynorm = (double *)malloc(b * sizeof(double));
  const double *ygold;
  double lse;
  for (int t = 0; t <= (c - 1) * b - 1; t += b) {
    lstm_predict(l, b, main_params, extra_params, state, input, ypred);
    lse = logsumexp(ypred, b);
    for (int i = 0; i < b; i++) ynorm[i] = ypred[i] - lse;
    ygold = &sequence[t + b];
    for (int i = 0; i < b; i++) total += ygold[i] * ynorm[i];
    count += b;
    input = ygold;
  }
  *loss = -total / count;
  free(ypred);
  free(ynorm);
}

enum { L = 2, C = 5, B = 3 };
static double loss_at(const double *mp, const double *ep, const double *s0, const double *seq) {
  double state[2 * L * B], loss;
  memcpy(state, s0, sizeof state);
  lstm_objective(L, C, B, mp, ep, state, seq, &loss);
  return loss;
}
static int failures = 0;
static void check(const char *what, double got, double want, double atol) {
  if (!(fabs(got - want) <= atol + 1e-6 * fabs(want))) {
    printf("%s: got %.15g, want %.15g\n", what, got, want);
    failures++;
  }
}

int main(void) {
  double mp[2 * L * 4 * B], ep[3 * B], s0[2 * L * B], seq[C * B];
  for (int i = 0; i < 2 * L * 4 * B; i++) mp[i] = 0.3 * sin(1.7 * i + 0.2);
  for (int i = 0; i < 3 * B; i++) ep[i] = 0.5 + 0.2 * cos(0.9 * i);
  for (int i = 0; i < 2 * L * B; i++) s0[i] = 0.1 * cos(0.4 * i);
  for (int i = 0; i < C * B; i++) seq[i] = sin(0.37 * i + 1.0);
  double dmp[2 * L * 4 * B] = {0}, dep[3 * B] = {0}, state[2 * L * B], loss = 0, dloss = 1;
  memcpy(state, s0, sizeof state);
  __enzyme_autodiff((void *)lstm_objective, enzyme_const, L, enzyme_const, C, enzyme_const, B,
                    enzyme_dup, mp, dmp, enzyme_dup, ep, dep, enzyme_const, state,
                    enzyme_const, seq, enzyme_dupnoneed, &loss, &dloss);
  /* the objective ran: the state holds the final hidden and cell values */
  double expect_state[2 * L * B], expect_loss;
  memcpy(expect_state, s0, sizeof expect_state);
  lstm_objective(L, C, B, mp, ep, expect_state, seq, &expect_loss);
  for (int i = 0; i < 2 * L * B; i++) check("final state", state[i], expect_state[i], 0);
  const double h = 1e-6;
  for (int k = 0; k < 2 * L * 4 * B; k += 3) {
    double a[2 * L * 4 * B], m[2 * L * 4 * B];
    memcpy(a, mp, sizeof a);
    memcpy(m, mp, sizeof m);
    a[k] += h;
    m[k] -= h;
    check("d loss / d main_params (central difference)", dmp[k],
          (loss_at(a, ep, s0, seq) - loss_at(m, ep, s0, seq)) / (2 * h), 1e-8);
  }
  for (int k = 0; k < 3 * B; k++) {
    double a[3 * B], m[3 * B];
    memcpy(a, ep, sizeof a);
    memcpy(m, ep, sizeof m);
    a[k] += h;
    m[k] -= h;
    check("d loss / d extra_params (central difference)", dep[k],
          (loss_at(mp, a, s0, seq) - loss_at(mp, m, s0, seq)) / (2 * h), 1e-8);
  }
  /* forward mode, the same enzyme_const state: <J t, 1> = <t, grad> */
  double t[2 * L * 4 * B], dot = 0;
  for (int i = 0; i < 2 * L * 4 * B; i++) {
    t[i] = cos(0.3 * i);
    dot += t[i] * dmp[i];
  }
  double tangent = 0, l2 = 0;
  memcpy(state, s0, sizeof state);
  __enzyme_fwddiff((void *)lstm_objective, enzyme_const, L, enzyme_const, C, enzyme_const, B,
                   enzyme_dup, mp, t, enzyme_const, ep, enzyme_const, state, enzyme_const,
                   seq, enzyme_dup, &l2, &tangent);
  check("forward vs reverse", tangent, dot, 1e-12);
  check("forward mode's primal loss", l2, expect_loss, 0);
  if (failures) abort();
  printf("OK\n");
  return 0;
}
