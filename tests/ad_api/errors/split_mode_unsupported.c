// EXPECT-ERROR: not supported yet
void *__enzyme_fwdsplit(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  return __enzyme_fwdsplit((void *)f, 2.0, 1.0) != 0;  // ERROR-LINE
}
