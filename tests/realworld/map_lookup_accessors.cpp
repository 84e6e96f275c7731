// Callees that return pointers into active memory (shadow return values): std::map's
// operator[] and iterators (the red-black tree is walked in the derivative, and a shadow
// tree built as a copy of the primal one is walked alongside), and a matrix row accessor
// that is not inlined. A small finite-element style assembly: element stiffness scaled by
// a per-material coefficient looked up by id, rows of a dense matrix reached through the
// accessor. Reverse and forward mode; checked against central differences.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);

struct Material {
  double young, density;
};

struct Matrix {
  int rows, cols;
  std::vector<double> data;
  Matrix(int r, int c) : rows(r), cols(c), data(r * c, 0.0) {}
};

__attribute__((noinline)) double* row(Matrix* m, int i) { return m->data.data() + i * m->cols; }
__attribute__((noinline)) const double* crow(const Matrix* m, int i) {
  return m->data.data() + i * m->cols;
}

// energy of a chain of 1D elements: 0.5 * E_m * (u_{i+1} - u_i)^2 / len + gravity
__attribute__((noinline)) double chain_energy(std::map<int, Material>& mats, const int* ids,
                                              const double* u, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) {
    Material& m = mats[ids[i]];  // operator[]: a reference into the tree
    double du = u[i + 1] - u[i];
    e += 0.5 * m.young * du * du + 9.81 * m.density * 0.5 * (u[i] + u[i + 1]);
  }
  // every material's density also enters a mass term (iterating the map)
  for (auto it = mats.begin(); it != mats.end(); ++it) e += 0.1 * it->second.density;
  return e;
}

double energy(std::map<int, Material>* mats, const int* ids, const double* u, int n) {
  return chain_energy(*mats, ids, u, n);
}

// y = A x through row accessors, then |y|^2
double matvec_norm(Matrix* a, const double* x) {
  double s = 0;
  for (int i = 0; i < a->rows; ++i) {
    const double* r = crow(a, i);
    double yi = 0;
    for (int j = 0; j < a->cols; ++j) yi += r[j] * x[j];
    s += yi * yi;
  }
  double* first = row(a, 0);  // written through the accessor
  first[0] *= 2.0;
  return s + first[0];
}

static int failures = 0;
static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::printf("%s: got %.15g, want %.15g\n", what, got, want);
    ++failures;
  }
}

int main() {
  const double h = 1e-6;
  std::map<int, Material> mats = {{1, {2.0, 3.0}}, {7, {0.5, 11.0}}, {3, {1.5, 4.0}}};
  int ids[4] = {7, 1, 3, 7};
  double u[5] = {0.0, 0.1, -0.2, 0.3, 0.35};
  {
    std::map<int, Material> dmats = mats;  // the shadow map: same keys, zero values
    for (auto& kv : dmats) kv.second = {0, 0};
    double du[5] = {0};
    __enzyme_autodiff((void*)energy, &mats, &dmats, enzyme_const, ids, u, du, enzyme_const, 4);
    for (int key : {1, 3, 7}) {
      std::map<int, Material> a = mats, m = mats;
      a[key].young += h;
      m[key].young -= h;
      double fd = (energy(&a, ids, u, 4) - energy(&m, ids, u, 4)) / (2 * h);
      check("d E / d young (central difference)", dmats[key].young, fd, 1e-6);
      a = mats;
      m = mats;
      a[key].density += h;
      m[key].density -= h;
      fd = (energy(&a, ids, u, 4) - energy(&m, ids, u, 4)) / (2 * h);
      check("d E / d density (central difference)", dmats[key].density, fd, 1e-6);
    }
    for (int k = 0; k < 5; ++k) {
      double ua[5], um[5];
      for (int j = 0; j < 5; ++j) ua[j] = um[j] = u[j];
      ua[k] += h;
      um[k] -= h;
      check("d E / d u (central difference)", du[k],
            (energy(&mats, ids, ua, 4) - energy(&mats, ids, um, 4)) / (2 * h), 1e-6);
    }
    std::map<int, Material> tm = mats;  // forward: a tangent in material 7's stiffness
    for (auto& kv : tm) kv.second = {0, 0};
    tm[7].young = 1.0;
    double zero_u[5] = {0};
    double tan = __enzyme_fwddiff((void*)energy, &mats, &tm, enzyme_const, ids, u, zero_u,
                                  enzyme_const, 4);
    check("forward vs reverse (map)", tan, dmats[7].young, 1e-10);
  }
  {
    Matrix a(3, 2), da(3, 2);
    for (int i = 0; i < 6; ++i) a.data[i] = 0.5 + 0.25 * i;
    double x[2] = {1.5, -0.5}, dx[2] = {0, 0};
    Matrix keep = a;
    __enzyme_autodiff((void*)matvec_norm, &a, &da, x, dx);
    for (int k = 0; k < 6; ++k) {
      Matrix pa = keep, pm = keep;
      pa.data[k] += h;
      pm.data[k] -= h;
      double fd = (matvec_norm(&pa, x) - matvec_norm(&pm, x)) / (2 * h);
      check("d / d A (central difference)", da.data[k], fd, 1e-6);
    }
    for (int k = 0; k < 2; ++k) {
      double xa[2] = {x[0], x[1]}, xm[2] = {x[0], x[1]};
      xa[k] += h;
      xm[k] -= h;
      Matrix pa = keep, pm = keep;
      double fd = (matvec_norm(&pa, xa) - matvec_norm(&pm, xm)) / (2 * h);
      check("d / d x (central difference)", dx[k], fd, 1e-6);
    }
    Matrix b = keep, tb(3, 2);
    double tx[2] = {1.0, 0.0};
    double tan = __enzyme_fwddiff((void*)matvec_norm, &b, &tb, x, tx);
    check("forward vs reverse (accessor)", tan, dx[0], 1e-10);
  }
  if (failures) std::abort();
  std::printf("OK\n");
  return 0;
}
