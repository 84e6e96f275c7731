// EXPECT-ERROR: the attribute 'enzyme_nofree' does not reach irgrad
// clang drops attributes it does not know; enzyme_nofree cannot be predefined (it is
// also a marker's name), so irgrad reports it with the spelling that works.
double __enzyme_autodiff(void *, ...);

__attribute__((enzyme_nofree)) double twice(double x); // ERROR-LINE
double twice(double x) { return 2 * x; }

double f(double x) { return twice(x) * x; }

int main(void) { return __enzyme_autodiff((void *)f, 0.3) > 0 ? 0 : 1; }
