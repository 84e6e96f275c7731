// EXPECT-ERROR: No derivative found for measured_response
// A callback that may be an external function (defined in a library compiled without
// IR): the derivative of the call through the pointer cannot exist, and irgrad names the
// call instead of returning a wrong derivative.
extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
double measured_response(double x); /* defined in a prebuilt library */

__attribute__((noinline)) double apply(double (*f)(double), double x) {
  return f(x) * x; // ERROR-LINE
}
double loss(double x) { return apply(measured_response, x); }
int main(void) { return __enzyme_autodiff((void *)loss, 1.5) > 0; }
