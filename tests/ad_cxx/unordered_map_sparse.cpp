// std::unordered_map as a sparse vector keyed by index (the way assembly and feature
// code accumulate coefficients): entries inserted with operator[], accumulated with +=,
// looked up with find() and count(), iterated over; its rehashing (libstdc++'s
// _Prime_rehash_policy, compiled into the library) carries no derivative. Reverse and
// forward mode against central differences.
#include <unordered_map>
#include "check.hpp"

// ||A x||^2 for a sparse A given as (row, col, value) triplets, rows accumulated in a hash
// map; the values are active, the pattern is not
double sparse_energy(const double* vals, const int* rows, const int* cols, int nnz,
                     const double* x) {
  std::unordered_map<int, double> y;
  for (int k = 0; k < nnz; ++k) y[rows[k]] += vals[k] * x[cols[k]];
  double e = 0.0;
  for (const auto& [row, v] : y) e += (row + 1) * v * v;
  auto hit = y.find(2);
  if (hit != y.end() && y.count(7) == 0) e += 0.5 * hit->second;
  return e;
}

static const int ROWS[9] = {0, 2, 2, 5, 9, 9, 9, 13, 0};
static const int COLS[9] = {0, 1, 3, 2, 0, 1, 2, 3, 3};

static double energy_of(const double* vals, const double* x) {
  return sparse_energy(vals, ROWS, COLS, 9, x);
}

int main() {
  double vals[9] = {1.0, -0.5, 0.25, 2.0, 0.75, -1.25, 0.5, 1.5, -0.3};
  double x[4] = {0.4, -1.1, 0.9, 2.0};
  double dvals[9] = {0}, dx[4] = {0};
  __enzyme_autodiff((void*)sparse_energy, enzyme_dup, vals, dvals, enzyme_const, ROWS,
                    enzyme_const, COLS, enzyme_const, 9, enzyme_dup, x, dx);
  auto central = [&](double* v, int k) {
    const double h = 1e-6, keep = v[k];
    v[k] = keep + h;
    double up = energy_of(vals, x);
    v[k] = keep - h;
    double down = energy_of(vals, x);
    v[k] = keep;
    return (up - down) / (2 * h);
  };
  for (int k = 0; k < 9; ++k) check("d energy / d vals", dvals[k], central(vals, k), 1e-7);
  for (int i = 0; i < 4; ++i) check("d energy / dx", dx[i], central(x, i), 1e-7);
  double tvals[9] = {0.3, 0, -1, 0.5, 0, 2, 0, 1, 0.25}, tx[4] = {1, -1, 0.5, 0};
  double t = __enzyme_fwddiff((void*)sparse_energy, enzyme_dup, vals, tvals, enzyme_const,
                              ROWS, enzyme_const, COLS, enzyme_const, 9, enzyme_dup, x, tx);
  double want = 0.0;
  for (int k = 0; k < 9; ++k) want += dvals[k] * tvals[k];
  for (int i = 0; i < 4; ++i) want += dx[i] * tx[i];
  check("tangent", t, want, 1e-12);
  std::puts("OK");
}
