// EXPECT-ERROR: must be a function
// The first argument of __enzyme_autodiff is a data pointer, not a function.
double __enzyme_autodiff(void *, ...);

double table[4] = {1.0, 2.0, 3.0, 4.0};

int main(void) { return __enzyme_autodiff((void *)table, 2.0) > 0.0; }
