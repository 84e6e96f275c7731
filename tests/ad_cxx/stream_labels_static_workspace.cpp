// Solver code that reports as it goes and keeps a scratch buffer between calls:
//  * labels longer than std::string's 15-character inline buffer, written with
//    std::ostringstream and taken out with str() (libstdc++ fills the string: str(),
//    _M_replace, _M_assign, _M_append), kept in a std::vector<std::string>, used as
//    std::map keys, and returned by value from a noinline formatter into a record;
//  * a function-static std::vector<double> workspace that vector::assign (a callee)
//    fills through the global, reused by the later calls.
// Forward mode (one tangent and two at once) and reverse mode against central
// differences, on labels dropped in the objective and on labels kept in a container, a
// map and a record next to a noinline call (each pointer the library writes into a
// string that has a shadow is mirrored into the shadow, in both modes). The
// workspace's first call is the derivative: a workspace allocated by an earlier primal
// call has a shadow irgrad cannot know, and the derivative stops with a message instead
// (tests/ad_forward/test_global_workspace_callee.py).
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "check.hpp"

extern int enzyme_width;
struct Lanes { double d[2]; };
Lanes __enzyme_fwddiff_lanes(void*, ...);

struct Param {
  std::string name;
  double value;
};

__attribute__((noinline)) std::string describe(int k, double v) {
  std::ostringstream os;
  os << "parameter number " << k << " has value " << v;
  return os.str();
}

__attribute__((noinline)) double weighted(const Param& p, double w) {
  return p.value * w + 0.0 * static_cast<double>(p.name.size());
}

static size_t label_chars = 0;

// reverse and forward mode: labels made and dropped in the objective (and one more
// string grown by the library)
double labelled_energy(const double* x, int n) {
  std::string title = "energy";
  title += " of a chain of weighted squares";
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    std::ostringstream os;
    os << "term " << i << " of " << title;
    std::string label = os.str();
    e += (x[i] * x[i] + std::sin(x[i])) * (1.0 + 0.5 * i);
    label_chars += label.size();
  }
  return e;
}

// reverse and forward mode: labels that outlive their stream (a container, map keys, a
// record)
double logged_energy(const double* x, int n) {
  std::ostringstream head;
  head << "objective with " << n << " terms and a long header";
  std::string key = head.str();
  std::vector<std::string> lines;
  Param p{"", 0.0};
  double e = 0.0;
  for (int i = 0; i < n; ++i) {
    std::ostringstream os;
    os << "term " << i << " of a sum of weighted squares";
    lines.push_back(os.str());
    p.name = describe(i, x[i]);
    p.value = x[i] * x[i] + std::sin(x[i]);
    e += weighted(p, 1.0 + 0.5 * i);
  }
  std::map<std::string, double> named;
  named[key] = e;
  named[lines.back()] = 2.0 * e;
  label_chars += key.size() + lines.size();
  return named[key] + named[lines.back()];
}

// forward mode: a scratch workspace kept in a function-static vector
double smoothed(const double* x, int n) {
  static std::vector<double> work;
  work.assign(x, x + n);
  for (int i = 1; i + 1 < n; ++i) work[i] = 0.25 * (x[i - 1] + 2.0 * x[i] + x[i + 1]);
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += work[i] * work[i] * (1.0 + i);
  return s;
}

static void central(double (*f)(const double*, int), double* x, int n, double* fd) {
  for (int k = 0; k < n; ++k) {
    const double h = 1e-6, keep = x[k];
    x[k] = keep + h;
    double up = f(x, n);
    x[k] = keep - h;
    double down = f(x, n);
    x[k] = keep;
    fd[k] = (up - down) / (2 * h);
  }
}

static double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

int main() {
  const int n = 5;
  double x[n] = {0.3, -1.2, 0.8, 2.0, -0.4}, fd[n];
  double t0[n] = {1.0, 0.5, -0.25, 2.0, -1.0}, t1[n] = {0.0, -1.0, 0.5, 0.25, 3.0};

  // the workspace's first use is inside the derivative: its shadow is irgrad's own
  double ts = __enzyme_fwddiff((void*)smoothed, enzyme_dup, x, t0, enzyme_const, n);
  central(smoothed, x, n, fd);
  check("smoothed: forward", ts, dot(fd, t0, n), 1e-6);

  double dx[n] = {0};
  __enzyme_autodiff((void*)labelled_energy, enzyme_dup, x, dx, enzyme_const, n);
  central(labelled_energy, x, n, fd);
  for (int k = 0; k < n; ++k) check("labelled: reverse", dx[k], fd[k], 1e-6);
  double tl = __enzyme_fwddiff((void*)labelled_energy, enzyme_dup, x, t0, enzyme_const, n);
  check("labelled: forward", tl, dot(fd, t0, n), 1e-6);

  central(logged_energy, x, n, fd);
  double dg[n] = {0};
  __enzyme_autodiff((void*)logged_energy, enzyme_dup, x, dg, enzyme_const, n);
  for (int k = 0; k < n; ++k) check("logged: reverse", dg[k], fd[k], 1e-6);
  double tg = __enzyme_fwddiff((void*)logged_energy, enzyme_dup, x, t0, enzyme_const, n);
  check("logged: forward", tg, dot(fd, t0, n), 1e-6);
  Lanes two = __enzyme_fwddiff_lanes((void*)logged_energy, enzyme_width, 2, enzyme_dup, x,
                                     t0, t1, enzyme_const, n);
  check("logged: forward lane 0", two.d[0], dot(fd, t0, n), 1e-6);
  check("logged: forward lane 1", two.d[1], dot(fd, t1, n), 1e-6);

  if (label_chars == 0) return 1;
  std::printf("OK\n");
  return 0;
}
