/* Planetary n-body (the benchmarks-game formulation): symplectic Euler steps over an
   array of body structs; the gradient of the final energy with respect to the initial
   state. */
#include <math.h>
#include <stdlib.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct { double x, y, z, vx, vy, vz, mass; } body;

static void advance(body *b, int nb, double dt) {
  for (int i = 0; i < nb; i++) {
    for (int j = i + 1; j < nb; j++) {
      double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
      double d2 = dx * dx + dy * dy + dz * dz;
      double mag = dt / (d2 * sqrt(d2));
      b[i].vx -= dx * b[j].mass * mag;
      b[i].vy -= dy * b[j].mass * mag;
      b[i].vz -= dz * b[j].mass * mag;
      b[j].vx += dx * b[i].mass * mag;
      b[j].vy += dy * b[i].mass * mag;
      b[j].vz += dz * b[i].mass * mag;
    }
  }
  for (int i = 0; i < nb; i++) {
    b[i].x += dt * b[i].vx;
    b[i].y += dt * b[i].vy;
    b[i].z += dt * b[i].vz;
  }
}

static double energy(const body *b, int nb) {
  double e = 0.0;
  for (int i = 0; i < nb; i++) {
    e += 0.5 * b[i].mass * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
    for (int j = i + 1; j < nb; j++) {
      double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
      e -= b[i].mass * b[j].mass / sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return e;
}

double simulate(body *b, int nb, int steps) {
  for (int s = 0; s < steps; s++) advance(b, nb, 0.01);
  return energy(b, nb);
}

static int NB, STEPS;
static body *B0, *B, *dB, *V0, *TB;
static double tangent;
static volatile double sink;

static void reset(void) {
  for (int i = 0; i < NB; i++) B[i] = B0[i];
}
static void primal(void) {
  reset();
  sink = simulate(B, NB, STEPS);
}
static void gradient(void) {
  reset();
  for (int i = 0; i < NB; i++) dB[i] = (body){0, 0, 0, 0, 0, 0, 0};
  __enzyme_autodiff((void *)simulate, enzyme_dup, B, dB, enzyme_const, NB, enzyme_const,
                    STEPS);
}
static void forward(void) {
  reset();
  for (int i = 0; i < NB; i++) TB[i] = V0[i];
  tangent = __enzyme_fwddiff((void *)simulate, enzyme_dup, B, TB, enzyme_const, NB,
                             enzyme_const, STEPS);
}
static double objective(void) {
  reset();
  return simulate(B, NB, STEPS);
}
static void verify(void) {
  gradient();
  bench_fd_check("dB0", objective, (double *)B0, (double *)dB, 7 * NB, 7, 1e-6);
  forward();
  bench_dir d = {(double *)B0, (double *)V0, 7 * NB};
  bench_fd_check_dir("tangent", objective, &d, 1, tangent, 1e-6);
}

int main(int argc, char **argv) {
  NB = argc > 1 ? atoi(argv[1]) : 5;
  STEPS = argc > 2 ? atoi(argv[2]) : 1000;
  B0 = malloc(sizeof(body) * NB);
  B = malloc(sizeof(body) * NB);
  dB = malloc(sizeof(body) * NB);
  V0 = malloc(sizeof(body) * NB);
  TB = malloc(sizeof(body) * NB);
  for (int i = 0; i < NB; i++) {
    double r = 1.0 + i, a = 0.7 * i;
    B0[i] = (body){r * cos(a), r * sin(a), 0.1 * i, -0.3 * sin(a) / sqrt(r),
                   0.3 * cos(a) / sqrt(r), 0.01 * i, i == 0 ? 10.0 : 0.01 * (i + 1)};
    V0[i] = (body){0.1, -0.2, 0.05, 0.01 * i, 0.02, -0.01, 0.0};
  }
  char size[48];
  snprintf(size, sizeof size, "%d bodies %d steps", NB, STEPS);
  bench_report("nbody", size, primal, gradient, forward, verify, 11, &dB[1].x);
  return 0;
}
