// The explain report says where the free of each heap block a function allocates and
// frees itself went: a minor that each level of a recursion overwrites for every column
// is read by no reverse pass (its values are taped), so it is freed where the primal
// frees it; a buffer filled once and handed to a helper three times may be read again by
// the helper's reverse, a buffer re-read by the reverse pass itself, and a row buffer
// allocated in a loop (freed early, its memory would go back to the system and be mapped
// again every iteration) are freed by their reverse.
// RUN: %irgrad cc -O1 -shared --explain-ad %s -o %t1.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O2 -shared --explain-ad %s -o %t2.so 2>&1 | %filecheck %s
// RUN: %irgrad cc -O3 -shared --explain-ad %s -o %t3.so 2>&1 | %filecheck %s
#include <math.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double det(const double *a, int n) {
  if (n == 1) return a[0];
  double *minor = malloc(sizeof(double) * (n - 1) * (n - 1));
  double sum = 0.0, sign = 1.0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++) {
      int k = 0;
      for (int j = 0; j < n; j++)
        if (j != c) minor[(i - 1) * (n - 1) + k++] = a[i * n + j];
    }
    sum += sign * a[c] * det(minor, n - 1);
    sign = -sign;
  }
  free(minor);
  return sum;
}

__attribute__((noinline)) double norm(const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += v[i] * v[i];
  return sqrt(s);
}

double filled_once(const double *x, int n) {
  double *w = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) w[i] = exp(x[i]);
  double s = 0.0;
  for (int k = 1; k <= 3; k++) s += k * norm(w, n);
  free(w);
  return s;
}

double reread(const double *x, int n) {
  double *t = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) t[i] = x[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += t[i] * sin(t[(i + 1) % n]);
  free(t);
  return s;
}

double rows(const double *x, int m, int n) {
  double s = 0.0;
  for (int r = 0; r < m; r++) {
    double *row = malloc(sizeof(double) * n);
    for (int j = 0; j < n; j++) row[j] = sin(x[r * n + j]);
    s += norm(row, n);
    free(row);
  }
  return s;
}

void grad_det(double *a, double *da, int n) {
  __enzyme_autodiff((void *)det, enzyme_dup, a, da, enzyme_const, n);
}
void grad_filled(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)filled_once, enzyme_dup, x, dx, enzyme_const, n);
}
void grad_reread(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)reread, enzyme_dup, x, dx, enzyme_const, n);
}
void grad_rows(double *x, double *dx, int m, int n) {
  __enzyme_autodiff((void *)rows, enzyme_dup, x, dx, enzyme_const, m, enzyme_const, n);
}
// CHECK-LABEL: irgrad: explain: derivative {{.*}} of det (reverse, augmented primal (split))
// CHECK: heap blocks it frees itself (1):
// CHECK-NEXT: explain_freed_blocks.c:18:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}@malloc(
// CHECK-NEXT: freed where the primal frees it: the reverse pass reads nothing from it
// CHECK-LABEL: irgrad: explain: derivative diffe_det of det (reverse, combined)
// CHECK: heap blocks it frees itself (1):
// CHECK-NEXT: explain_freed_blocks.c:18:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}@malloc(
// CHECK-NEXT: freed where the primal frees it: the reverse pass reads nothing from it
// CHECK-LABEL: irgrad: explain: derivative diffe_filled_once of filled_once (reverse, combined)
// CHECK: heap blocks it frees itself (1):
// CHECK-NEXT: explain_freed_blocks.c:40:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}@malloc(
// CHECK-NEXT: freed by its reverse: a callee's reverse may read it again (nothing overwrites it after the call)
// CHECK-LABEL: irgrad: explain: derivative diffe_reread of reread (reverse, combined)
// CHECK: heap blocks it frees itself (1):
// CHECK-NEXT: explain_freed_blocks.c:49:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}@malloc(
// CHECK-NEXT: freed by its reverse: the reverse pass reads it (or a pointer into it)
// CHECK-LABEL: irgrad: explain: derivative diffe_rows of rows (reverse, combined)
// CHECK: heap blocks it frees itself (1):
// CHECK-NEXT: explain_freed_blocks.c:60:{{[0-9]+}}: %{{.*}} = {{.*}}call {{.*}}@malloc(
// CHECK-NEXT: freed by its reverse: allocated in a loop, whose every iteration would hand the block back to the allocator among shadows that live on, and take it again
