// Shared by the C++ AD programs: Enzyme's C++ entry points and a numeric check that
// aborts on a mismatch (each program prints OK at the end).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

inline void check(const char* what, double got, double want, double tol = 1e-9) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("%s: got %.17g, want %.17g\n", what, got, want);
    std::abort();
  }
}
