// Hessian-vector products of a small neural-network loss: one hidden tanh layer, a loop
// over a mini-batch, mean squared error; all weights packed in one parameter vector.
#include "hvp_check.h"

enum { D = 3, H = 4, M = 5, P = H * D + H + H + 1 };  // W1, b1, w2, b2

static const double X[M][D] = {{0.1, -0.5, 0.9}, {1.2, 0.3, -0.7}, {-0.4, 0.8, 0.2},
                               {0.6, -1.1, 0.5}, {-0.9, 0.05, -0.3}};
static const double Y[M] = {0.3, -0.2, 0.8, 0.1, -0.6};

double nn_loss(const double *p, int n) {
  const double *W1 = p, *b1 = p + H * D, *w2 = p + H * D + H, b2 = p[H * D + 2 * H];
  double loss = 0.0;
  for (int m = 0; m < M; m++) {
    double out = b2;
    for (int h = 0; h < H; h++) {
      double a = b1[h];
      for (int d = 0; d < D; d++) a += W1[h * D + d] * X[m][d];
      out += w2[h] * tanh(a);
    }
    double r = out - Y[m];
    loss += r * r;
  }
  return loss / M;
}

void grad_nn_loss(const double *p, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0.0;
  __enzyme_autodiff((void *)nn_loss, enzyme_dup, p, g, enzyme_const, n);
}

int main(void) {
  double p[P];
  direction(p, P, 42);
  for (int seed = 0; seed < 4; seed++) {
    double v[P], g[P], hv[P], fd[P];
    direction(v, P, seed);
    __enzyme_fwddiff((void *)grad_nn_loss, enzyme_dup, p, v, enzyme_dupnoneed, g, hv,
                     enzyme_const, P);
    fd_hvp(grad_nn_loss, p, v, fd, P);
    for (int i = 0; i < P; i++) CHECK_CLOSE(hv[i], fd[i], FD_TOL);
  }
  printf("OK\n");
  return 0;
}
