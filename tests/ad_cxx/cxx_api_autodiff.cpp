// Enzyme's C++ interface (<enzyme/enzyme>, found without -I): enzyme::autodiff in the
// Reverse, ReverseWithPrimal and Forward modes with enzyme::Active, Duplicated (pointers,
// references, values in forward mode), DuplicatedNoNeed and Const, on functions,
// function pointers, lambdas (with captures, generic and mutable) and functors;
// enzyme::tuple results read with enzyme::get and structured bindings. Each result is
// checked against a hand-derived value or central differences.
#include <enzyme/enzyme>

#include <array>
#include <vector>

#include "check.hpp"

float square(float x) { return x * x; }
float square_ref(const float& x) { return x * x; }
float square_ptr(const float* x) { return *x * *x; }
double mix(double x, double y) { return x * y + std::sin(x); }
double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e * e;
  return s;
}
int clamp_into(const double* x, double* y, int n) {  // returns how many were clamped
  int clamped = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = x[i] > 1 ? 1 : x[i] * x[i];
    clamped += x[i] > 1;
  }
  return clamped;
}
void scale_into(const double* x, double* y, int n, double s) {
  for (int i = 0; i < n; ++i) y[i] = s * x[i] * x[i];
}

struct Spring {  // a functor: its stiffness is a constant of the differentiation
  double k;
  double operator()(double x, const double* rest) const {
    return 0.5 * k * (x - *rest) * (x - *rest);
  }
};

struct Polynomial {
  std::array<double, 4> c;
  double operator()(double x) const {
    double r = 0;
    for (int i = 3; i >= 0; --i) r = r * x + c[i];
    return r;
  }
};

int main() {
  // functions, by value / reference / pointer, in both modes
  const float x = 10;
  check("active", enzyme::get<0>(enzyme::get<0>(
                      enzyme::autodiff<enzyme::Reverse>(square, enzyme::Active{x}))), 20);
  float dx = 0;
  enzyme::autodiff<enzyme::Reverse>(square_ref, enzyme::Duplicated<const float&>{x, dx});
  check("reference", dx, 20);
  dx = 0;
  enzyme::autodiff<enzyme::Reverse>(&square_ptr, enzyme::Duplicated<const float*>{&x, &dx});
  check("pointer", dx, 20);
  check("forward value", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                             square, enzyme::Duplicated<float>{x, 1.0f})), 20);
  const float one = 1;
  check("forward reference", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                                 square_ref, enzyme::Duplicated<const float&>{x, one})), 20);
  // the constructor forms Enzyme's own examples write (value, shadow) / (value)
  check("forward constructed", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                                   square, enzyme::Duplicated<float>(x, 1.0f))), 20);
  check("reverse constructed", enzyme::get<0>(enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(
                                   square, enzyme::Active<float>(x)))), 20);

  // ReverseWithPrimal: tuple<tuple<derivatives...>, value>
  auto r = enzyme::autodiff<enzyme::ReverseWithPrimal>(mix, enzyme::Active{2.0},
                                                       enzyme::Active{3.0});
  check("primal", enzyme::get<1>(r), 6 + std::sin(2.0));
  auto [dmx, dmy] = enzyme::get<0>(r);
  check("d/dx", dmx, 3 + std::cos(2.0));
  check("d/dy", dmy, 2);
  auto c = enzyme::autodiff<enzyme::Reverse>(mix, enzyme::Active{2.0}, enzyme::Const{3.0});
  check("const arg", enzyme::get<0>(enzyme::get<0>(c)), 3 + std::cos(2.0));
  // forward with the primal: the second template argument says how the result takes part
  auto fp = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      mix, enzyme::Duplicated{2.0, 1.0}, enzyme::Const{3.0});
  check("fwd primal", enzyme::get<0>(fp), 6 + std::sin(2.0));
  check("fwd tangent", enzyme::get<1>(fp), 3 + std::cos(2.0));

  // a constant result: forward mode returns just f(x), as for a result that is not a float
  auto fc = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(
      mix, enzyme::Duplicated{2.0, 1.0}, enzyme::Const{3.0});
  check("fwd const result", enzyme::get<0>(fc), 6 + std::sin(2.0));
  double cx[3] = {0.5, 2.0, -1.5}, ctx[3] = {1, 1, 1}, cy[3], cty[3] = {0, 0, 0};
  auto nclamped = enzyme::autodiff<enzyme::Forward>(
      clamp_into, enzyme::Duplicated<const double*>{cx, ctx},
      enzyme::DuplicatedNoNeed<double*>{cy, cty}, 3);
  if (enzyme::get<0>(nclamped) != 1) std::abort();
  check("clamped tangent 0", cty[0], 2 * cx[0]);
  check("clamped tangent 1", cty[1], 0);
  check("clamped tangent 2", cty[2], 2 * cx[2]);

  // std::vector by reference, DuplicatedNoNeed
  std::vector<double> v{1, -2, 3}, dv(3, 0.0);
  enzyme::autodiff<enzyme::Reverse>(norm2,
                                    enzyme::DuplicatedNoNeed<const std::vector<double>&>{v, dv});
  for (int i = 0; i < 3; ++i) check("vector", dv[i], 2 * v[i]);

  // a void function writing its output: reverse adds into the input's shadow
  double in[3] = {0.5, 1.5, -2}, din[3] = {0, 0, 0}, out[3], dout[3] = {1, 2, 3};
  auto ds = enzyme::autodiff<enzyme::Reverse>(
      scale_into, enzyme::Duplicated<const double*>{in, din},
      enzyme::DuplicatedNoNeed<double*>{out, dout}, 3, enzyme::Active{0.25});
  double ds_want = 0;
  for (int i = 0; i < 3; ++i) {
    check("void d/dx", din[i], (i + 1) * 2 * 0.25 * in[i]);
    ds_want += (i + 1) * in[i] * in[i];
  }
  check("void d/ds", enzyme::get<0>(enzyme::get<0>(ds)), ds_want);

  // lambdas: captures are constants; generic and mutable lambdas too
  double k = 3.0;
  auto cubic = [k](double a, double b) { return k * a * a * b; };
  auto rl = enzyme::autodiff<enzyme::Reverse>(cubic, enzyme::Active{1.5}, enzyme::Active{2.0});
  check("lambda d/da", enzyme::get<0>(enzyme::get<0>(rl)), 2 * k * 1.5 * 2.0);
  check("lambda d/db", enzyme::get<1>(enzyme::get<0>(rl)), k * 1.5 * 1.5);
  check("lambda fwd", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                          cubic, enzyme::Duplicated{1.5, 1.0}, enzyme::Duplicated{2.0, 0.0})),
        2 * k * 1.5 * 2.0);
  auto generic = [](auto a) { return a * std::exp(a); };
  check("generic lambda", enzyme::get<0>(enzyme::get<0>(
                              enzyme::autodiff<enzyme::Reverse>(generic, enzyme::Active{0.5}))),
        std::exp(0.5) * 1.5);
  int calls = 0;
  auto counted = [&calls](double a) mutable {
    ++calls;
    return std::log(a);
  };
  check("mutable lambda", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                              counted, enzyme::Duplicated{4.0, 1.0})), 0.25);
  if (calls != 1) {
    std::printf("the lambda ran %d times\n", calls);
    std::abort();
  }
  // a captureless lambda as a function pointer
  auto fptr = +[](double a) { return a * a * a; };
  check("function pointer", enzyme::get<0>(enzyme::get<0>(
                                enzyme::autodiff<enzyme::Reverse>(fptr, enzyme::Active{2.0}))),
        12);

  // functors
  Spring spring{4.0};
  double rest = 0.5, drest = 0;
  auto rs = enzyme::autodiff<enzyme::Reverse>(spring, enzyme::Active{2.0},
                                              enzyme::Duplicated<const double*>{&rest, &drest});
  check("functor d/dx", enzyme::get<0>(enzyme::get<0>(rs)), 4.0 * 1.5);
  check("functor d/drest", drest, -4.0 * 1.5);
  Polynomial p{{1.0, -2.0, 0.5, 0.25}};
  double h = 1e-6;
  check("polynomial fwd", enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(
                              p, enzyme::Duplicated{0.7, 1.0})),
        (p(0.7 + h) - p(0.7 - h)) / (2 * h), 1e-8);
  std::puts("OK");
}
