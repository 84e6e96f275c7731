// EXPECT-ERROR: each element must be the address of a global variable, not the function log_value
// A function registered as an inactive global.
#include <stdio.h>
double __enzyme_autodiff(void *, ...);

void log_value(double x) { printf("%g\n", x); }
void *__enzyme_inactive_global[] = {(void *)log_value}; // ERROR-LINE

double f(double x) { log_value(x); return x * x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0 ? 0 : 1; }
