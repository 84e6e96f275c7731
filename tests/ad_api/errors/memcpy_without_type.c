// EXPECT-ERROR: Cannot deduce type of the data copied by memcpy/memmove
// A generic copy routine differentiated on its own: nothing says what the bytes are.
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void copy_bytes(void *dst, const void *src, unsigned long n) {
  memcpy(dst, src, n);  // ERROR-LINE
}

int main(void) {
  double x[2] = {1.0, 2.0}, dx[2] = {0}, y[2], dy[2] = {1.0, 1.0};
  __enzyme_autodiff((void *)copy_bytes, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const,
                    sizeof x);
  return 0;
}
