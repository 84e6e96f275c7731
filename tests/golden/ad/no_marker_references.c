// After lowering, no reference to Enzyme's entry points or markers remains (they are
// never defined: the program links without them), and the derivatives are synthesized.
// RUN: %irgrad cc -S -emit-llvm -O0 %s -o - | %filecheck %s
// RUN: %irgrad cc -S -emit-llvm -O2 %s -o - | %filecheck %s --check-prefix=OPT
#include <enzyme/enzyme.h>

static double f(double *x, double y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y;
  return s;
}

void grad_f(double *x, double *dx, double y, int n, double *dy) {
  *dy = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_out, y, enzyme_const, n);
}

double fwd_f(double *x, double *dx, double y, double ty, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, ty, enzyme_const, n);
}

// CHECK-NOT: enzyme_
// CHECK-DAG: define internal {{.*}}@diffe_f(
// CHECK-DAG: define internal {{.*}}@fwddiffe_f(
// CHECK-NOT: enzyme_

// OPT-NOT: enzyme_
// OPT: define {{.*}}@grad_f(
// OPT-NOT: enzyme_
