// EXPECT-ERROR: enzyme_runtime_activity: runtime activity is not supported
extern int enzyme_runtime_activity;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_runtime_activity, 2.0) > 0;  // ERROR-LINE
}
