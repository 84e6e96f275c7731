// EXPECT-ERROR: irgrad does not support the attribute enzyme_shouldrecompute
// An Enzyme attribute irgrad does not implement, spelled as the annotation it becomes.
#include <math.h>
double __enzyme_autodiff(void *, ...);

__attribute__((annotate("enzyme_shouldrecompute"))) double heavy(double x) { return exp(sin(x)); } // ERROR-LINE

double f(double x) { return heavy(x) * x; }

int main(void) { return __enzyme_autodiff((void *)f, 0.3) > 0 ? 0 : 1; }
