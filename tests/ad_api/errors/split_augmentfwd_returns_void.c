// EXPECT-ERROR: must be declared to return the tape
void __enzyme_augmentfwd(void *, ...);
double f(double x) { return x * x; }
int main(void) {
  __enzyme_augmentfwd((void *)f, 2.0);  // ERROR-LINE
  return 0;
}
