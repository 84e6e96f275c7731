// The explain report of a derivative with a loop of known trip count (its taped values:
// bytes per iteration and in all), a loop whose count is known only at run time (per
// iteration, in the peak), and what is re-read or recomputed instead of taped.
// RUN: %irgrad cc -O0 -shared --explain-ad %s -o %t0.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O2 -shared --explain-ad %s -o %t2.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O3 -shared --explain-ad %s -o %t3.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O2 -shared %s -o %tq.so 2>&1 | %filecheck %s --check-prefix=QUIET --allow-empty
// separate compilation: the request travels in the object to the link, where AD happens
// RUN: %irgrad cc -O2 -c --explain-ad %s -o %t.o
// RUN: %irgrad cc -shared %t.o -o %tl.so 2>&1 | %filecheck %s
#include <math.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < 100; i++) {
    double t = sin(x[i % 8]) * s;
    s = s * 0.5 + exp(t);
  }
  for (int j = 0; j < n; j++) s += x[j] * x[j] / (1.0 + s);
  return s;
}

void grad(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
// CHECK: irgrad: explain: derivative diffe_f of f (reverse, combined)
// CHECK: cached on the tape
// CHECK-DAG: explain_loops.c:18:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}double @sin(
// CHECK-DAG: 8 bytes per execution; loop at {{.*}}explain_loops.c:{{1[78]}}:{{[0-9]+}} (trip count 100), 800 bytes in all
// CHECK-DAG: loop at {{.*}}explain_loops.c:21:{{[0-9]+}} (trip count known at run time)
// CHECK: recomputed in the reverse pass
// CHECK-DAG: explain_loops.c:18:{{[0-9]+}}: %{{.*}} = load double
// CHECK-DAG: re-loaded: nothing overwrites that memory before the reverse pass
// CHECK-DAG: a loop counter: recomputed from the reverse loop's counter
// CHECK: peak tape: {{[1-9][0-9]*}} bytes + {{[1-9][0-9]*}} bytes x iterations of the loop at {{.*}}explain_loops.c:21:{{[0-9]+}}
// QUIET-NOT: explain
