// EXPECT-ERROR: takes one activity marker per argument of sq
int __enzyme_augmentsize(void *, ...);
double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_augmentsize((void *)sq, 2.0);  // ERROR-LINE
}
