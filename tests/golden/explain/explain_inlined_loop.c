// A loop whose body starts with an inlined callee's code is named by its own statement
// (the !llvm.loop start location), not by the first instruction of its header, which
// comes from the callee after inlining.
// RUN: %irgrad cc -O1 -shared --explain-ad %s -o %t1.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O2 -shared --explain-ad %s -o %t2.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O3 -g -shared --explain-ad %s -o %t3.so 2>&1 | %filecheck %s
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double norm2(const double *a, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return s;
}

double f(double *x, int n, int m) {
  double s = 0.0;
  for (int it = 0; it < m; it++) {
    double d = norm2(x, n);
    s += sin(d);
    x[it % n] *= cos(d);
  }
  return s;
}

void grad(double *x, double *dx, int n, int m) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
}
// CHECK: irgrad: explain: derivative diffe_f of f (reverse, combined)
// CHECK: cached on the tape
// CHECK-DAG: explain_inlined_loop.c:22:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}double @cos({{.*}}
// CHECK-NEXT: 8 bytes per execution; loop at {{.*}}explain_inlined_loop.c:19:3 (trip count known at run time)
// CHECK-DAG: loop at {{.*}}explain_inlined_loop.c:13:3 (trip count known at run time), loop at {{.*}}explain_inlined_loop.c:19:3
// CHECK: peak tape:
