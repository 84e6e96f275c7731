// EXPECT-ERROR: the reverse pass must be a function, not a null pointer
// A registration whose reverse pass is still a placeholder.
double __enzyme_autodiff(void *, ...);

double scale(double x, double s) { return x * s; }
void *scale_aug(double x, double s) { return 0; }

void *__enzyme_register_gradient_scale[] = {(void *)scale, (void *)scale_aug, 0}; // ERROR-LINE

double f(double x) { return scale(x, 2.0) * x; }

int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0 ? 0 : 1; }
