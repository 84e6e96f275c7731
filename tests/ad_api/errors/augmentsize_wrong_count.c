// EXPECT-ERROR: sum takes 2 arguments, the call gives 1 activity markers
extern int enzyme_dup;
int __enzyme_augmentsize(void *, ...);
double sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * x[i]; return s; }
int main(void) {
  return __enzyme_augmentsize((void *)sum, enzyme_dup);  // ERROR-LINE
}
