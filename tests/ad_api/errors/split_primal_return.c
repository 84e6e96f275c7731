// EXPECT-ERROR: enzyme_primal_return is not available in split mode
extern int enzyme_primal_return;
void *__enzyme_augmentfwd(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_augmentfwd((void *)sq, enzyme_primal_return, 2.0) != 0;  // ERROR-LINE
}
