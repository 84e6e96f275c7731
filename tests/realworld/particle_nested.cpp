// Nested AD in the style of gradbench's "particle" (Enzyme's C++ implementation): a
// particle falls in the field of two charges; the outer derivative is of the landing
// spot with respect to a charge position w, and every Euler step asks for the field's
// gradient with an inner __enzyme_fwddiff/__enzyme_autodiff call that passes the charges
// enzyme_const although they depend on w (runtime activity: the inner derivative treats
// them as constant, the outer one differentiates through them). All four orders (forward
// or reverse over forward or reverse), checked against central differences.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern int enzyme_const, enzyme_dup, enzyme_dupnoneed, enzyme_out;
void __enzyme_autodiff(...);
void __enzyme_fwddiff(...);

struct Point {
  double x, y;
};
static Point operator+(Point a, Point b) { return {a.x + b.x, a.y + b.y}; }
static Point operator*(double s, Point p) { return {s * p.x, s * p.y}; }

double accel(const std::vector<Point>& charges, const Point& p) {
  double s = 0;
  for (const Point& c : charges) {
    double dx = c.x - p.x, dy = c.y - p.y;
    s += 1.0 / std::sqrt(dx * dx + dy * dy);
  }
  return s;
}
void accel_wrap(const std::vector<Point>* charges, const Point* px, double* out) {
  *out = accel(*charges, *px);
}

// the field's gradient at x by reverse mode (charges enzyme_const)
static Point field_r(const std::vector<Point>& charges, Point x) {
  Point g{0, 0};
  double dummy, unit = 1;
  __enzyme_autodiff((void*)accel_wrap, enzyme_const, &charges, enzyme_dup, &x, &g,
                    enzyme_dupnoneed, &dummy, &unit);
  return g;
}
// ... and by forward mode, one direction at a time
static Point field_f(const std::vector<Point>& charges, Point x) {
  Point g{0, 0}, ex{1, 0}, ey{0, 1};
  double dummy = 0;
  __enzyme_fwddiff((void*)accel_wrap, enzyme_const, &charges, enzyme_dup, &x, &ex,
                   enzyme_dupnoneed, &dummy, &g.x);
  __enzyme_fwddiff((void*)accel_wrap, enzyme_const, &charges, enzyme_dup, &x, &ey,
                   enzyme_dupnoneed, &dummy, &g.y);
  return g;
}

typedef Point (*field_fn)(const std::vector<Point>&, Point);

static double naive_euler(double w, field_fn field) {
  std::vector<Point> charges = {{10.0, 10.0 - w}, {10.0, 0.0}};
  Point x{0.0, 8.0}, xdot{0.75, 0.0};
  const double dt = 1e-1;
  for (int step = 0; step < 1000; ++step) {
    Point xddot = -1.0 * field(charges, x);
    x = x + dt * xdot;
    if (x.y <= 0) {
      double tf = -x.y / xdot.y;
      Point xf = x + tf * xdot;
      return xf.x * xf.x;
    }
    xdot = xdot + dt * xddot;
  }
  return 0;
}
double naive_euler_r(double w) { return naive_euler(w, field_r); }
double naive_euler_f(double w) { return naive_euler(w, field_f); }

void objective_r(const double* w, double* out) { *out = naive_euler_r(w[0]); }
void objective_f(const double* w, double* out) { *out = naive_euler_f(w[0]); }

static int failures = 0;
static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("%s: got %.15g, want %.15g\n", what, got, want);
    ++failures;
  }
}

int main() {
  const double w = 0.1, h = 1e-6;
  double fd = (naive_euler_f(w + h) - naive_euler_f(w - h)) / (2 * h);
  check("inner derivatives agree", naive_euler_r(w), naive_euler_f(w), 1e-12);
  double dummy = 0, one = 1;
  double ff = 0, fr = 0;
  __enzyme_fwddiff((void*)objective_f, enzyme_dup, &w, &one, enzyme_dupnoneed, &dummy, &ff);
  __enzyme_fwddiff((void*)objective_r, enzyme_dup, &w, &one, enzyme_dupnoneed, &dummy, &fr);
  // reverse mode consumes the seed (the output's shadow is zero afterwards, as in
  // Enzyme): each call gets its own
  double rf = 0, rr = 0, seed_rf = 1, seed_rr = 1;
  __enzyme_autodiff((void*)objective_f, enzyme_dup, &w, &rf, enzyme_dupnoneed, &dummy,
                    &seed_rf);
  __enzyme_autodiff((void*)objective_r, enzyme_dup, &w, &rr, enzyme_dupnoneed, &dummy,
                    &seed_rr);
  check("reverse mode consumed its seed", seed_rf + seed_rr, 0, 0);
  std::printf("FF %.12g FR %.12g RF %.12g RR %.12g (central difference %.12g)\n", ff, fr, rf,
              rr, fd);
  check("forward over forward", ff, fd, 1e-5);
  check("forward over reverse", fr, ff, 1e-9);
  check("reverse over forward", rf, ff, 1e-9);
  check("reverse over reverse", rr, ff, 1e-9);
  if (failures) std::abort();
  std::printf("OK\n");
  return 0;
}
