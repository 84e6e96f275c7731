// EXPECT-ERROR: the inactive function must be a function, not the global variable counter
// The address of a global where a function was meant.
double __enzyme_autodiff(void *, ...);

int counter;
void *__enzyme_inactivefn[] = {(void *)&counter}; // ERROR-LINE

double f(double x) { counter++; return x * x; }

int main(void) { return __enzyme_autodiff((void *)f, 2.0) > 0 ? 0 : 1; }
