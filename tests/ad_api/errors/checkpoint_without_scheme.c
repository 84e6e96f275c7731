// EXPECT-ERROR: __enzyme_checkpoint_for needs 'enzyme_scheme, &scheme, &config'
#include <enzyme/checkpoint.h>
#include <stdint.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static void decay(int64_t t, double *u) { *u *= 0.9 + 0.0 * (double)t; }
static void run(double *u) {
  __enzyme_checkpoint_for((void *)decay, 0, 10, u);  // ERROR-LINE
}
int main(void) {
  double u = 1.0, du = 1.0;
  __enzyme_autodiff((void *)run, enzyme_dup, &u, &du);
  return du > 0;
}
