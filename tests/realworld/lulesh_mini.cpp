// A Lagrangian shock-hydrodynamics mini-app in the style of LULESH (2D quadrilaterals,
// staggered grid): a Domain of std::vector fields and connectivity built inside the
// differentiated function, several explicit time steps with an artificial viscosity and
// an ideal-gas equation of state. The gradient of the final internal energy with
// respect to the initial energy deposit and the gas constant is checked against central
// differences and forward mode.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup, enzyme_out;

typedef int Index_t;
typedef double Real_t;

class Domain {
 public:
  Domain(Index_t nx, Index_t ny, Real_t length) : m_nx(nx), m_ny(ny) {
    Index_t nnode = (nx + 1) * (ny + 1);
    Index_t nelem = nx * ny;
    AllocateNodal(nnode);
    AllocateElem(nelem);
    Real_t h = length / nx;
    for (Index_t j = 0; j <= ny; ++j)
      for (Index_t i = 0; i <= nx; ++i) {
        m_x[j * (nx + 1) + i] = h * i;
        m_y[j * (nx + 1) + i] = h * j;
      }
    for (Index_t j = 0; j < ny; ++j)
      for (Index_t i = 0; i < nx; ++i) {
        Index_t e = j * nx + i;
        Index_t n0 = j * (nx + 1) + i;
        m_nodelist[4 * e + 0] = n0;
        m_nodelist[4 * e + 1] = n0 + 1;
        m_nodelist[4 * e + 2] = n0 + nx + 2;
        m_nodelist[4 * e + 3] = n0 + nx + 1;
      }
    // symmetry planes: the nodes on x = 0 and y = 0 keep their normal velocity at zero
    for (Index_t i = 0; i <= nx; ++i) m_symmY.push_back(i);
    for (Index_t j = 0; j <= ny; ++j) m_symmX.push_back(j * (nx + 1));
  }

  void AllocateNodal(Index_t n) {
    m_x.resize(n); m_y.resize(n);
    m_xd.resize(n, 0.0); m_yd.resize(n, 0.0);
    m_fx.resize(n); m_fy.resize(n);
    m_nodalMass.resize(n, 0.0);
  }
  void AllocateElem(Index_t n) {
    m_nodelist.resize(4 * n);
    m_e.resize(n, 0.0); m_p.resize(n, 0.0); m_q.resize(n, 0.0);
    m_v.resize(n, 1.0); m_volo.resize(n); m_elemMass.resize(n);
    m_vdov.resize(n);
  }

  Index_t numElem() const { return m_nx * m_ny; }
  Index_t numNode() const { return (m_nx + 1) * (m_ny + 1); }
  const Index_t* nodelist(Index_t e) const { return &m_nodelist[4 * e]; }

  Index_t m_nx, m_ny;
  std::vector<Real_t> m_x, m_y, m_xd, m_yd, m_fx, m_fy, m_nodalMass;
  std::vector<Index_t> m_nodelist, m_symmX, m_symmY;
  std::vector<Real_t> m_e, m_p, m_q, m_v, m_volo, m_elemMass, m_vdov;
};

static inline Real_t QuadArea(const Real_t x[4], const Real_t y[4]) {
  return 0.5 * ((x[2] - x[0]) * (y[3] - y[1]) - (x[3] - x[1]) * (y[2] - y[0]));
}

static void CollectNodes(const Domain& d, Index_t e, Real_t x[4], Real_t y[4]) {
  const Index_t* nl = d.nodelist(e);
  for (int k = 0; k < 4; ++k) {
    x[k] = d.m_x[nl[k]];
    y[k] = d.m_y[nl[k]];
  }
}

static void InitMeshDecomp(Domain& d, Real_t rho0) {
  for (Index_t e = 0; e < d.numElem(); ++e) {
    Real_t x[4], y[4];
    CollectNodes(d, e, x, y);
    Real_t vol = QuadArea(x, y);
    d.m_volo[e] = vol;
    d.m_elemMass[e] = rho0 * vol;
    const Index_t* nl = d.nodelist(e);
    for (int k = 0; k < 4; ++k) d.m_nodalMass[nl[k]] += 0.25 * rho0 * vol;
  }
}

// pressure and viscosity forces on the nodes (the gradient of the area times p + q)
static void CalcForceForNodes(Domain& d) {
  for (Index_t n = 0; n < d.numNode(); ++n) { d.m_fx[n] = 0.0; d.m_fy[n] = 0.0; }
  for (Index_t e = 0; e < d.numElem(); ++e) {
    Real_t x[4], y[4];
    CollectNodes(d, e, x, y);
    Real_t sig = d.m_p[e] + d.m_q[e];
    const Index_t* nl = d.nodelist(e);
    for (int k = 0; k < 4; ++k) {
      int kp = (k + 1) & 3, km = (k + 3) & 3;
      // d(area)/dx_k = 0.5 (y_{k+1} - y_{k-1}), d(area)/dy_k = -0.5 (x_{k+1} - x_{k-1})
      d.m_fx[nl[k]] += sig * 0.5 * (y[kp] - y[km]);
      d.m_fy[nl[k]] -= sig * 0.5 * (x[kp] - x[km]);
    }
  }
}

static void LagrangeNodal(Domain& d, Real_t dt) {
  CalcForceForNodes(d);
  for (Index_t n = 0; n < d.numNode(); ++n) {
    d.m_xd[n] += d.m_fx[n] / d.m_nodalMass[n] * dt;
    d.m_yd[n] += d.m_fy[n] / d.m_nodalMass[n] * dt;
  }
  for (size_t i = 0; i < d.m_symmX.size(); ++i) d.m_xd[d.m_symmX[i]] = 0.0;
  for (size_t i = 0; i < d.m_symmY.size(); ++i) d.m_yd[d.m_symmY[i]] = 0.0;
  for (Index_t n = 0; n < d.numNode(); ++n) {
    d.m_x[n] += d.m_xd[n] * dt;
    d.m_y[n] += d.m_yd[n] * dt;
  }
}

static void LagrangeElements(Domain& d, Real_t gamma, Real_t qcoef) {
  for (Index_t e = 0; e < d.numElem(); ++e) {
    Real_t x[4], y[4];
    CollectNodes(d, e, x, y);
    Real_t vnew = QuadArea(x, y) / d.m_volo[e];
    Real_t dv = vnew - d.m_v[e];
    d.m_vdov[e] = dv / vnew;
    // monotonic artificial viscosity in compression only
    Real_t rho = d.m_elemMass[e] / (vnew * d.m_volo[e]);
    Real_t q = d.m_vdov[e] < 0.0 ? qcoef * rho * d.m_vdov[e] * d.m_vdov[e] : 0.0;
    // energy update (p dV work), then the equation of state p = (gamma - 1) rho e
    Real_t work = -0.5 * (d.m_p[e] + d.m_q[e] + q) * dv * d.m_volo[e];
    d.m_e[e] += work / d.m_elemMass[e];
    if (d.m_e[e] < 0.0) d.m_e[e] = 0.0;
    d.m_q[e] = q;
    d.m_p[e] = (gamma - 1.0) * rho * d.m_e[e];
    d.m_v[e] = vnew;
  }
}

// Sedov-like problem: energy deposited in the corner element, `steps` time steps;
// returns the internal energy left in the corner element (the rest went to kinetic
// energy and the neighbours)
double RunSedov(const double* param, int nx, int steps) {
  Domain dom(nx, nx, 1.0);
  Real_t einit = param[0], gamma = param[1];
  InitMeshDecomp(dom, 1.0);
  for (Index_t e = 0; e < dom.numElem(); ++e) dom.m_e[e] = 1e-3;
  dom.m_e[0] = einit;
  for (Index_t e = 0; e < dom.numElem(); ++e)
    dom.m_p[e] = (gamma - 1.0) * dom.m_e[e] * dom.m_elemMass[e] / dom.m_volo[e];
  Real_t dt = 1e-3;
  for (int s = 0; s < steps; ++s) {
    LagrangeNodal(dom, dt);
    LagrangeElements(dom, gamma, 1.5);
  }
  Real_t ekin = 0.0;
  for (Index_t n = 0; n < dom.numNode(); ++n)
    ekin += 0.5 * dom.m_nodalMass[n] * (dom.m_xd[n] * dom.m_xd[n] + dom.m_yd[n] * dom.m_yd[n]);
  return dom.m_e[0] * dom.m_elemMass[0] + 0.1 * ekin;
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

int main() {
  const int nx = 4, steps = 6;
  double param[2] = {2.0, 1.4};
  double grad[2] = {0.0, 0.0};
  __enzyme_autodiff((void*)RunSedov, enzyme_dup, param, grad, enzyme_const, nx,
                    enzyme_const, steps);
  for (int k = 0; k < 2; ++k) {
    double h = 1e-6, p[2] = {param[0], param[1]};
    p[k] = param[k] + h;
    double fp = RunSedov(p, nx, steps);
    p[k] = param[k] - h;
    double fm = RunSedov(p, nx, steps);
    check("reverse vs central difference", grad[k], (fp - fm) / (2 * h), 1e-6);
    double t[2] = {0.0, 0.0};
    t[k] = 1.0;
    double tangent = __enzyme_fwddiff((void*)RunSedov, enzyme_dup, param, t, enzyme_const,
                                      nx, enzyme_const, steps);
    check("forward vs reverse", tangent, grad[k], 1e-10);
  }
  std::printf("dE/de0 = %.12f, dE/dgamma = %.12f\nOK\n", grad[0], grad[1]);
  return 0;
}
