// EXPECT-ERROR: irgrad knows no function 'logonep' to differentiate my_log1p like
// A misspelled model function.
#include <math.h>
double __enzyme_autodiff(void *, ...);

double my_log1p(double x) { return log(1.0 + x); }
void *__enzyme_function_like[] = {(void *)my_log1p, "logonep"}; // ERROR-LINE

double f(double x) { return my_log1p(x * x); }

int main(void) { return __enzyme_autodiff((void *)f, 0.5) > 0 ? 0 : 1; }
