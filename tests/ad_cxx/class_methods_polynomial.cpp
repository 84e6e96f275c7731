// A small class holding a std::vector, with a constructor and const methods.
#include <vector>
#include "check.hpp"

class Poly {
 public:
  Poly(const double* c, int n) : coef_(c, c + n) {}
  double eval(double x) const {  // Horner
    double r = 0;
    for (auto it = coef_.rbegin(); it != coef_.rend(); ++it) r = r * x + *it;
    return r;
  }
  int degree() const { return int(coef_.size()) - 1; }

 private:
  std::vector<double> coef_;
};

double poly_at(const double* c, int n, double x) {
  Poly p(c, n);
  return p.eval(x) * p.degree();
}

int main() {
  double c[4] = {0.5, -1.0, 2.0, 0.25}, dc[4] = {0, 0, 0, 0};
  double x = 0.75;
  double dx = __enzyme_autodiff((void*)poly_at, enzyme_dup, c, dc, enzyme_const, 4,
                                enzyme_out, x);
  double want = 0;
  for (int i = 1; i < 4; ++i) want += i * c[i] * std::pow(x, i - 1);
  check("d/dx", dx, 3 * want);
  for (int i = 0; i < 4; ++i) check("d/dc", dc[i], 3 * std::pow(x, i));
  std::puts("OK");
}
