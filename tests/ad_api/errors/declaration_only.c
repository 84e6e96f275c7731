// EXPECT-ERROR: declared without a definition
double __enzyme_fwddiff(void *, ...);
double external_model(double);
int main(void) {
  return __enzyme_fwddiff((void *)external_model, 1.0, 1.0) > 0.0;  // ERROR-LINE
}
