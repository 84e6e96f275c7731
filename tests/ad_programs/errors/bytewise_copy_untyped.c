// EXPECT-ERROR: Cannot deduce type
// Active doubles copied byte by byte through char pointers: their type is lost on the way.
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void byte_copy(void *dst, const void *src, unsigned long n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  for (volatile unsigned long i = 0; i < n; i++) d[i] = s[i];
}

double f(const double *x) {
  double local[2];
  byte_copy(local, x, sizeof local);
  return local[0] * local[1];
}

int main(void) {
  double x[2] = {1.0, 2.0}, dx[2] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  return 0;
}
