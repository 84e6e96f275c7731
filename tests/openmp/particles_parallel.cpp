// Pairwise Lennard-Jones-like energy of particles, OpenMP over the outer loop, in the
// style of public molecular-dynamics teaching codes (std::vector of structs).
#include <cmath>
#include <cstdio>
#include <vector>
extern int enzyme_dup, enzyme_const;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

struct Particle { double x, y, z; };

static double pair_energy(const Particle &a, const Particle &b) {
  double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  double r2 = dx * dx + dy * dy + dz * dz + 0.5;
  double s6 = 1.0 / (r2 * r2 * r2);
  return 4.0 * (s6 * s6 - s6);
}

double total_energy(const double *coords, int n) {
  std::vector<Particle> p(n);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) p[i] = Particle{coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]};
  double e = 0.0;
#pragma omp parallel for reduction(+ : e) schedule(static, 2)
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) e += pair_energy(p[i], p[j]);
  return e;
}

int main() {
  const int n = 20;
  std::vector<double> c(3 * n), dc(3 * n, 0.0), t(3 * n), t0;
  for (int i = 0; i < 3 * n; i++) { c[i] = 1.3 * std::sin(0.7 * i + 0.2 * (i % 3)) + 0.4 * (i / 3); t[i] = std::cos(0.3 * i); }
  t0 = t;
  __enzyme_autodiff<void>((void *)total_energy, enzyme_dup, c.data(), dc.data(), enzyme_const, n);
  double tan = __enzyme_fwddiff<double>((void *)total_energy, enzyme_dup, c.data(), t.data(), enzyme_const, n);
  int bad = 0; double dir = 0;
  for (int i = 0; i < 3 * n; i++) {
    double h = 1e-6, s = c[i];
    c[i] = s + h; double fp = total_energy(c.data(), n); c[i] = s - h; double fm = total_energy(c.data(), n); c[i] = s;
    double fd = (fp - fm) / (2 * h); dir += fd * t0[i];
    if (std::fabs(fd - dc[i]) > 1e-5 * (1 + std::fabs(fd))) { bad++; std::printf("dc[%d] %g fd %g\n", i, dc[i], fd); }
  }
  if (std::fabs(dir - tan) > 1e-5 * (1 + std::fabs(dir))) { bad++; std::printf("tangent %g fd %g\n", tan, dir); }
  std::printf(bad ? "WRONG\n" : "OK\n");
  return bad != 0;
}
