// EXPECT-ERROR: must be a function
double __enzyme_fwddiff(void *, ...);
double table[4] = {1.0, 2.0, 3.0, 4.0};
int main(void) {
  return __enzyme_fwddiff((void *)table, 2.0, 1.0) > 0.0;  // ERROR-LINE
}
