// EXPECT-ERROR: not supported yet
void *__enzyme_augmentfwd(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  return __enzyme_augmentfwd((void *)f, 2.0) != 0;  // ERROR-LINE
}
