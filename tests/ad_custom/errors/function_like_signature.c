// EXPECT-ERROR: is declared like log1p, whose arguments are (float) and result float: the signatures must agree
// log1p takes one argument; the function declared like it takes two.
#include <math.h>
double __enzyme_autodiff(void *, ...);

double shifted_log(double x, double shift) { return log(shift + x); }
void *__enzyme_function_like[] = {(void *)shifted_log, "log1p"}; // ERROR-LINE

double f(double x) { return shifted_log(x, 1.0); }

int main(void) { return __enzyme_autodiff((void *)f, 0.5) > 0 ? 0 : 1; }
