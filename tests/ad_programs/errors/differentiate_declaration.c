// EXPECT-ERROR: without a definition
// The function to differentiate is only declared: there is nothing to differentiate.
double __enzyme_autodiff(void *, ...);
double external_model(double);

int main(void) { return __enzyme_autodiff((void *)external_model, 1.0) > 0.0; }
