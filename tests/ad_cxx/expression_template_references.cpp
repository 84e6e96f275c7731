// Expression templates in the style of Eigen: a product expression holds a transposed
// view by value, the view holds a reference to its matrix, and the product's evaluator
// copies the view (an 8-byte struct, moved as an i64 at -O0) next to the data pointers of
// both operands. The pointer read back through the copied view must keep its shadow.
// Reverse and forward mode against central differences.
#include <vector>

#include "check.hpp"

struct matrix {
  std::vector<double> data;
  long rows, cols;
  matrix(long r, long c) : data(r * c), rows(r), cols(c) {}
  double& operator()(long i, long j) { return data[i + rows * j]; }
  double operator()(long i, long j) const { return data[i + rows * j]; }
};

template <class M>
struct transposed {
  const M& m;
  long rows() const { return m.cols; }
  long cols() const { return m.rows; }
};

template <class L, class R>
struct product {
  L lhs;  // held by value, like Eigen's nested expressions
  const R& rhs;
};

template <class L, class R>
struct product_evaluator {
  L lhs_expr;           // the view, copied
  const double* lhs;    // its matrix's data
  long lhs_stride;
  const double* rhs;    // the right operand's data
  long rhs_stride, inner;
  explicit product_evaluator(const product<L, R>& p)
      : lhs_expr(p.lhs), lhs(lhs_expr.m.data.data()), lhs_stride(lhs_expr.m.rows),
        rhs(p.rhs.data.data()), rhs_stride(p.rhs.rows), inner(lhs_expr.cols()) {}
  double coeff(long i, long j) const {  // (A^T B)(i, j)
    double s = 0.0;
    for (long k = 0; k < inner; ++k) s += lhs[k + lhs_stride * i] * rhs[k + rhs_stride * j];
    return s;
  }
};

template <class L, class R>
__attribute__((noinline)) void assign(matrix& dst, const product<L, R>& src) {
  product_evaluator<L, R> ev(src);
  for (long j = 0; j < dst.cols; ++j)
    for (long i = 0; i < dst.rows; ++i) dst(i, j) = ev.coeff(i, j);
}

// the Gram matrix A^T A of a 4x3 matrix filled from the parameters, then a weighted sum
double gram_energy(const double* p) {
  matrix a(4, 3), g(3, 3);
  for (long j = 0; j < 3; ++j)
    for (long i = 0; i < 4; ++i) a(i, j) = std::sin(p[0] * (i + 1) + p[1] * j) + p[2] * i * j;
  product<transposed<matrix>, matrix> expr{transposed<matrix>{a}, a};
  assign(g, expr);
  double e = 0.0;
  for (long j = 0; j < 3; ++j)
    for (long i = 0; i < 3; ++i) e += (1.0 + i + 2.0 * j) * g(i, j);
  return e;
}

int main() {
  double p[3] = {0.3, -0.7, 0.2}, dp[3] = {0.0, 0.0, 0.0};
  __enzyme_autodiff((void*)gram_energy, enzyme_dup, p, dp);
  for (int k = 0; k < 3; ++k) {
    double h = 1e-6, q[3] = {p[0], p[1], p[2]}, r[3] = {p[0], p[1], p[2]}, t[3] = {0, 0, 0};
    q[k] += h;
    r[k] -= h;
    check("reverse vs central difference", dp[k],
          (gram_energy(q) - gram_energy(r)) / (2 * h), 1e-6);
    t[k] = 1.0;
    check("forward vs reverse", __enzyme_fwddiff((void*)gram_energy, enzyme_dup, p, t), dp[k]);
  }
  std::printf("OK\n");
  return 0;
}
