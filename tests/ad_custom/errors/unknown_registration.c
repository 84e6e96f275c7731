// EXPECT-ERROR: irgrad does not know this Enzyme registration
// An Enzyme registration irgrad does not implement: an error, never silently ignored.
#include <stdio.h>
double __enzyme_autodiff(void *, ...);

void trace(double x) { printf("%g\n", x); }
void *__enzyme_shouldrecompute[] = {(void *)trace}; // ERROR-LINE

double f(double x) { trace(x); return x * x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0 ? 0 : 1; }
