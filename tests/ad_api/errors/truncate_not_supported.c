// EXPECT-ERROR: __enzyme_truncate: floating-point truncation and error estimation are not supported
void *__enzyme_truncate_mem_func(void *, int, int);
double sq(double x) { return x * x; }
int main(void) {
  double (*f)(double) = (double (*)(double))__enzyme_truncate_mem_func((void *)sq, 64, 32);  // ERROR-LINE
  return f(2.0) > 0;
}
