// EXPECT-ERROR: it cannot be used in vector forward mode (enzyme_width 2)
// A custom forward derivative computes one tangent; vector mode asks for two.
double __enzyme_fwddiff(void *, ...);
extern int enzyme_width;
typedef struct { double t[2]; } Tangents;
Tangents __enzyme_fwddiff2(void *, ...);

double cube(double x) { return x * x * x; }
typedef struct { double value, tangent; } Dual;
Dual cube_fwd(double x, double dx) { Dual d = {x * x * x, 3 * x * x * dx}; return d; }
void *__enzyme_register_derivative_cube[] = {(void *)cube, (void *)cube_fwd};

double f(double x) {
  return cube(x) + x; // ERROR-LINE
}

int main(void) {
  Tangents t = __enzyme_fwddiff2((void *)f, enzyme_width, 2, 1.5, 1.0, 2.0);
  return t.t[0] > 0 ? 0 : 1;
}
