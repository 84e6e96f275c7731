/* A Lagrangian shock-hydrodynamics mini-app in the style of LULESH (plain C, one domain
   struct of node and element arrays): per-element stress and Flanagan-Belytschko hourglass
   forces computed with small fixed-size local arrays and written to per-corner scratch
   arrays, gathered to the nodes through a node-to-corner connectivity list; nodal
   acceleration with symmetry-plane boundary conditions, velocity (with a cut-off) and
   position updates; element volumes, strain rates and characteristic lengths; artificial
   viscosity; a predictor-corrector energy/pressure update per element (an ideal-gas-like
   EOS with cut-offs); a Courant and volume-change time-step constraint. Written from the
   method's description, not from LULESH's source.

   The derivative: the final kinetic energy after a few cycles w.r.t. the initial node
   positions and the initial element energies. The set-up keeps finite differences
   meaningful: the time step stays at dtmax (the Courant limit is far above it), and a slow
   implosion keeps every velocity far above the cut-off and every element in compression, so
   that no branch of the code flips under a small perturbation. */
#include <string.h>
#include "bench_timing.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double Real_t;
typedef int Index_t;

typedef struct Domain {
  /* nodes */
  Index_t numNode;
  Real_t *x, *y, *z;       /* coordinates */
  Real_t *xd, *yd, *zd;    /* velocities */
  Real_t *xdd, *ydd, *zdd; /* accelerations */
  Real_t *fx, *fy, *fz;    /* forces */
  Real_t *nodalMass;
  Index_t numSymm;                /* nodes per symmetry plane */
  Index_t *symmX, *symmY, *symmZ; /* nodes on the planes x = 0, y = 0, z = 0 */
  Index_t *nodeElemStart;         /* numNode + 1 offsets into nodeElemCornerList */
  Index_t *nodeElemCornerList;    /* element * 8 + local corner */
  /* elements */
  Index_t numElem;
  Index_t *nodelist; /* 8 nodes per element */
  Real_t *e, *p, *q; /* energy, pressure, artificial viscosity */
  Real_t *v, *volo;  /* relative and reference volume */
  Real_t *delv, *vdov, *arealg, *ss, *elemMass;
  /* time stepping */
  Real_t dt, time, dtcourant, dthydro;
  /* parameters */
  Real_t hgcoef, qlc_monoq, qqc_monoq, u_cut, e_cut, p_cut, q_cut, emin, pmin, eosvmax;
  Real_t refdens, cfl, dvovmax, dtmax, dtmult_lb, dtmult_ub;
} Domain;

enum { VolumeError = -1 };

/* node signs of the trilinear hexahedron: local node a sits at (XI[a], ETA[a], ZETA[a]) */
static const Real_t XI[8] = {-1, 1, 1, -1, -1, 1, 1, -1};
static const Real_t ETA[8] = {-1, -1, 1, 1, -1, -1, 1, 1};
static const Real_t ZETA[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
/* the four hourglass base vectors */
static const Real_t HGBASE[4][8] = {{1, 1, -1, -1, -1, -1, 1, 1},
                                    {1, -1, -1, 1, -1, 1, 1, -1},
                                    {1, -1, 1, -1, 1, -1, 1, -1},
                                    {-1, 1, -1, 1, 1, -1, 1, -1}};

static void CollectNodal(const Index_t *elemNodes, const Real_t *src, Real_t dst[8]) {
  for (Index_t a = 0; a < 8; ++a) dst[a] = src[elemNodes[a]];
}

/* Jacobian at the element centre; b[c][a] = integral of dN_a/dx_c over the element (the
   cofactors of the Jacobian applied to the node's signs); returns the volume */
static Real_t CalcElemShapeFunctionDerivatives(const Real_t xl[8], const Real_t yl[8],
                                               const Real_t zl[8], Real_t b[3][8]) {
  Real_t J[3][3] = {{0}};
  for (Index_t a = 0; a < 8; ++a) {
    const Real_t s[3] = {XI[a], ETA[a], ZETA[a]};
    for (Index_t r = 0; r < 3; ++r) {
      J[r][0] += 0.125 * s[r] * xl[a];
      J[r][1] += 0.125 * s[r] * yl[a];
      J[r][2] += 0.125 * s[r] * zl[a];
    }
  }
  Real_t C[3][3];
  C[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  C[0][1] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  C[0][2] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  C[1][0] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  C[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  C[1][2] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  C[2][0] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  C[2][1] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  C[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  for (Index_t a = 0; a < 8; ++a)
    for (Index_t c = 0; c < 3; ++c)
      b[c][a] = C[0][c] * XI[a] + C[1][c] * ETA[a] + C[2][c] * ZETA[a];
  Real_t det = J[0][0] * C[0][0] + J[0][1] * C[0][1] + J[0][2] * C[0][2];
  return 8.0 * det;
}

/* squared area of the quadrilateral face (p0, p1, p2, p3): a quarter of |d1 x d2|^2 */
static Real_t AreaFace2(const Real_t xl[8], const Real_t yl[8], const Real_t zl[8], Index_t p0,
                        Index_t p1, Index_t p2, Index_t p3) {
  Real_t d1x = xl[p2] - xl[p0], d1y = yl[p2] - yl[p0], d1z = zl[p2] - zl[p0];
  Real_t d2x = xl[p3] - xl[p1], d2y = yl[p3] - yl[p1], d2z = zl[p3] - zl[p1];
  Real_t cx = d1y * d2z - d1z * d2y, cy = d1z * d2x - d1x * d2z, cz = d1x * d2y - d1y * d2x;
  return 0.25 * (cx * cx + cy * cy + cz * cz);
}

static Real_t CalcElemCharacteristicLength(const Real_t xl[8], const Real_t yl[8],
                                           const Real_t zl[8], Real_t volume) {
  static const Index_t faces[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                      {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  Real_t charLength = 0.0;
  for (Index_t f = 0; f < 6; ++f) {
    Real_t a = AreaFace2(xl, yl, zl, faces[f][0], faces[f][1], faces[f][2], faces[f][3]);
    charLength = a > charLength ? a : charLength;
  }
  return volume / sqrt(charLength);
}

/* hourglass modes orthogonal to the linear field, times the nodal velocities */
static void CalcElemFBHourglassForce(const Real_t xl[8], const Real_t yl[8], const Real_t zl[8],
                                     const Real_t xdl[8], const Real_t ydl[8],
                                     const Real_t zdl[8], const Real_t b[3][8], Real_t volume,
                                     Real_t coefficient, Real_t hgfx[8], Real_t hgfy[8],
                                     Real_t hgfz[8]) {
  Real_t hourgam[4][8];
  Real_t volinv = 1.0 / volume;
  for (Index_t m = 0; m < 4; ++m) {
    Real_t hx = 0.0, hy = 0.0, hz = 0.0;
    for (Index_t a = 0; a < 8; ++a) {
      hx += HGBASE[m][a] * xl[a];
      hy += HGBASE[m][a] * yl[a];
      hz += HGBASE[m][a] * zl[a];
    }
    for (Index_t a = 0; a < 8; ++a)
      hourgam[m][a] = HGBASE[m][a] - volinv * (hx * b[0][a] + hy * b[1][a] + hz * b[2][a]);
  }
  for (Index_t a = 0; a < 8; ++a) hgfx[a] = hgfy[a] = hgfz[a] = 0.0;
  for (Index_t m = 0; m < 4; ++m) {
    Real_t hxd = 0.0, hyd = 0.0, hzd = 0.0;
    for (Index_t a = 0; a < 8; ++a) {
      hxd += hourgam[m][a] * xdl[a];
      hyd += hourgam[m][a] * ydl[a];
      hzd += hourgam[m][a] * zdl[a];
    }
    for (Index_t a = 0; a < 8; ++a) {
      hgfx[a] -= coefficient * hourgam[m][a] * hxd;
      hgfy[a] -= coefficient * hourgam[m][a] * hyd;
      hgfz[a] -= coefficient * hourgam[m][a] * hzd;
    }
  }
}

/* stress and hourglass forces per element corner, then gathered to the nodes */
static void CalcForceForNodes(Domain *d) {
  Index_t numElem8 = d->numElem * 8;
  Real_t *fx_elem = malloc(sizeof(Real_t) * numElem8);
  Real_t *fy_elem = malloc(sizeof(Real_t) * numElem8);
  Real_t *fz_elem = malloc(sizeof(Real_t) * numElem8);
  for (Index_t k = 0; k < d->numElem; ++k) {
    const Index_t *elemNodes = &d->nodelist[8 * k];
    Real_t xl[8], yl[8], zl[8], xdl[8], ydl[8], zdl[8], b[3][8];
    Real_t hgfx[8], hgfy[8], hgfz[8];
    CollectNodal(elemNodes, d->x, xl);
    CollectNodal(elemNodes, d->y, yl);
    CollectNodal(elemNodes, d->z, zl);
    CollectNodal(elemNodes, d->xd, xdl);
    CollectNodal(elemNodes, d->yd, ydl);
    CollectNodal(elemNodes, d->zd, zdl);
    Real_t volume = CalcElemShapeFunctionDerivatives(xl, yl, zl, b);
    if (volume <= 0.0) {
      fprintf(stderr, "lulesh_mini: element %d inverted\n", k);
      exit(VolumeError);
    }
    /* isotropic stress -(p + q): the force on a corner pushes along its outward gradient */
    Real_t sig = d->p[k] + d->q[k];
    Real_t coefficient = d->hgcoef * 0.01 * d->ss[k] * d->elemMass[k] / cbrt(volume);
    CalcElemFBHourglassForce(xl, yl, zl, xdl, ydl, zdl, b, volume, coefficient, hgfx, hgfy,
                             hgfz);
    for (Index_t a = 0; a < 8; ++a) {
      fx_elem[8 * k + a] = sig * b[0][a] + hgfx[a];
      fy_elem[8 * k + a] = sig * b[1][a] + hgfy[a];
      fz_elem[8 * k + a] = sig * b[2][a] + hgfz[a];
    }
  }
  for (Index_t n = 0; n < d->numNode; ++n) {
    Real_t fx = 0.0, fy = 0.0, fz = 0.0;
    for (Index_t i = d->nodeElemStart[n]; i < d->nodeElemStart[n + 1]; ++i) {
      Index_t corner = d->nodeElemCornerList[i];
      fx += fx_elem[corner];
      fy += fy_elem[corner];
      fz += fz_elem[corner];
    }
    d->fx[n] = fx;
    d->fy[n] = fy;
    d->fz[n] = fz;
  }
  free(fz_elem);
  free(fy_elem);
  free(fx_elem);
}

static void CalcAccelerationForNodes(Domain *d) {
  for (Index_t n = 0; n < d->numNode; ++n) {
    d->xdd[n] = d->fx[n] / d->nodalMass[n];
    d->ydd[n] = d->fy[n] / d->nodalMass[n];
    d->zdd[n] = d->fz[n] / d->nodalMass[n];
  }
}

static void ApplyAccelerationBoundaryConditionsForNodes(Domain *d) {
  for (Index_t i = 0; i < d->numSymm; ++i) d->xdd[d->symmX[i]] = 0.0;
  for (Index_t i = 0; i < d->numSymm; ++i) d->ydd[d->symmY[i]] = 0.0;
  for (Index_t i = 0; i < d->numSymm; ++i) d->zdd[d->symmZ[i]] = 0.0;
}

static void CalcVelocityForNodes(Domain *d, Real_t dt, Real_t u_cut) {
  for (Index_t n = 0; n < d->numNode; ++n) {
    Real_t xdtmp = d->xd[n] + d->xdd[n] * dt;
    if (fabs(xdtmp) < u_cut) xdtmp = 0.0;
    d->xd[n] = xdtmp;
    Real_t ydtmp = d->yd[n] + d->ydd[n] * dt;
    if (fabs(ydtmp) < u_cut) ydtmp = 0.0;
    d->yd[n] = ydtmp;
    Real_t zdtmp = d->zd[n] + d->zdd[n] * dt;
    if (fabs(zdtmp) < u_cut) zdtmp = 0.0;
    d->zd[n] = zdtmp;
  }
}

static void CalcPositionForNodes(Domain *d, Real_t dt) {
  for (Index_t n = 0; n < d->numNode; ++n) {
    d->x[n] += d->xd[n] * dt;
    d->y[n] += d->yd[n] * dt;
    d->z[n] += d->zd[n] * dt;
  }
}

/* new relative volumes, their rates and the characteristic lengths; vnew is scratch */
static void CalcLagrangeElements(Domain *d, Real_t *vnew) {
  for (Index_t k = 0; k < d->numElem; ++k) {
    const Index_t *elemNodes = &d->nodelist[8 * k];
    Real_t xl[8], yl[8], zl[8], b[3][8];
    CollectNodal(elemNodes, d->x, xl);
    CollectNodal(elemNodes, d->y, yl);
    CollectNodal(elemNodes, d->z, zl);
    Real_t volume = CalcElemShapeFunctionDerivatives(xl, yl, zl, b);
    vnew[k] = volume / d->volo[k];
    if (vnew[k] <= 0.0) {
      fprintf(stderr, "lulesh_mini: element %d has a negative volume\n", k);
      exit(VolumeError);
    }
    d->delv[k] = vnew[k] - d->v[k];
    d->vdov[k] = d->delv[k] / (0.5 * (vnew[k] + d->v[k]) * d->dt);
    d->arealg[k] = CalcElemCharacteristicLength(xl, yl, zl, volume);
  }
}

/* linear and quadratic artificial viscosity in compression */
static void CalcQForElems(Domain *d, const Real_t *vnew) {
  for (Index_t k = 0; k < d->numElem; ++k) {
    Real_t q = 0.0;
    if (d->vdov[k] < 0.0) {
      Real_t rho = d->refdens / vnew[k], dl = d->arealg[k] * d->vdov[k];
      q = rho * (d->qqc_monoq * d->qqc_monoq * dl * dl - d->qlc_monoq * d->ss[k] * dl);
      if (fabs(q) < d->q_cut) q = 0.0;
    }
    d->q[k] = q;
  }
}

static void CalcPressureForElems(Real_t *p_new, Real_t *bvc, Real_t *pbvc, const Real_t *e_old,
                                 const Real_t *compression, const Real_t *vnewc, Real_t pmin,
                                 Real_t p_cut, Real_t eosvmax, Index_t length) {
  const Real_t c1s = 2.0 / 3.0;
  for (Index_t i = 0; i < length; ++i) {
    bvc[i] = c1s * (compression[i] + 1.0);
    pbvc[i] = c1s;
  }
  for (Index_t i = 0; i < length; ++i) {
    p_new[i] = bvc[i] * e_old[i];
    if (fabs(p_new[i]) < p_cut) p_new[i] = 0.0;
    if (vnewc[i] >= eosvmax) p_new[i] = 0.0; /* impossibly expanded: no pressure */
    if (p_new[i] < pmin) p_new[i] = pmin;
  }
}

/* predictor-corrector energy update: a half step with the old pressure, then the trapezoid
   rule with the pressure of the half step */
static void CalcEnergyForElems(Real_t *p_new, Real_t *e_new, Real_t *bvc, Real_t *pbvc,
                               const Real_t *p_old, const Real_t *e_old, const Real_t *q_old,
                               const Real_t *q_new, const Real_t *compression,
                               const Real_t *delvc, const Real_t *vnewc, const Domain *d,
                               Index_t length) {
  Real_t *p_half = malloc(sizeof(Real_t) * length);
  for (Index_t i = 0; i < length; ++i) {
    e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]);
    if (e_new[i] < d->emin) e_new[i] = d->emin;
  }
  CalcPressureForElems(p_half, bvc, pbvc, e_new, compression, vnewc, d->pmin, d->p_cut,
                       d->eosvmax, length);
  for (Index_t i = 0; i < length; ++i) {
    e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i] + p_half[i] + q_new[i]);
    if (fabs(e_new[i]) < d->e_cut) e_new[i] = 0.0;
    if (e_new[i] < d->emin) e_new[i] = d->emin;
  }
  CalcPressureForElems(p_new, bvc, pbvc, e_new, compression, vnewc, d->pmin, d->p_cut,
                       d->eosvmax, length);
  free(p_half);
}

static void CalcSoundSpeedForElems(Real_t *ss, const Real_t *vnewc, const Real_t *e_new,
                                   const Real_t *p_new, const Real_t *bvc, const Real_t *pbvc,
                                   Real_t rho0, Index_t length) {
  for (Index_t i = 0; i < length; ++i) {
    Real_t ssTmp = (pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0;
    ss[i] = ssTmp <= 1e-36 ? 1e-18 : sqrt(ssTmp);
  }
}

/* gathers the element state into temporaries, updates e, p and ss */
static void EvalEOSForElems(Domain *d, const Real_t *vnewc, const Real_t *q_old) {
  Index_t n = d->numElem;
  Real_t *e_old = malloc(sizeof(Real_t) * n), *delvc = malloc(sizeof(Real_t) * n);
  Real_t *p_old = malloc(sizeof(Real_t) * n), *compression = malloc(sizeof(Real_t) * n);
  Real_t *e_new = malloc(sizeof(Real_t) * n), *p_new = malloc(sizeof(Real_t) * n);
  Real_t *bvc = malloc(sizeof(Real_t) * n), *pbvc = malloc(sizeof(Real_t) * n);
  for (Index_t i = 0; i < n; ++i) {
    e_old[i] = d->e[i];
    delvc[i] = d->delv[i];
    p_old[i] = d->p[i];
    compression[i] = 1.0 / vnewc[i] - 1.0;
  }
  CalcEnergyForElems(p_new, e_new, bvc, pbvc, p_old, e_old, q_old, d->q, compression, delvc,
                     vnewc, d, n);
  for (Index_t i = 0; i < n; ++i) {
    d->p[i] = p_new[i];
    d->e[i] = e_new[i];
  }
  CalcSoundSpeedForElems(d->ss, vnewc, e_new, p_new, bvc, pbvc, d->refdens, n);
  free(pbvc);
  free(bvc);
  free(p_new);
  free(e_new);
  free(compression);
  free(p_old);
  free(delvc);
  free(e_old);
}

static void CalcTimeConstraintsForElems(Domain *d) {
  Real_t dtcourant = 1e20, dthydro = 1e20;
  for (Index_t k = 0; k < d->numElem; ++k) {
    Real_t dtc = d->cfl * d->arealg[k] / d->ss[k];
    if (dtc < dtcourant) dtcourant = dtc;
    if (d->vdov[k] != 0.0) {
      Real_t dth = d->dvovmax / (fabs(d->vdov[k]) + 1e-20);
      if (dth < dthydro) dthydro = dth;
    }
  }
  d->dtcourant = dtcourant;
  d->dthydro = dthydro;
}

/* the next step from the constraints, growing by at most dtmult_ub, kept when it would grow
   by less than dtmult_lb */
static void TimeIncrement(Domain *d, int cycle) {
  if (cycle == 0) return;
  Real_t olddt = d->dt, newdt = 1e20;
  if (d->dtcourant < newdt) newdt = d->dtcourant / 2.0;
  if (d->dthydro < newdt) newdt = d->dthydro * 2.0 / 3.0;
  Real_t ratio = newdt / olddt;
  if (ratio >= 1.0) {
    if (ratio < d->dtmult_lb) newdt = olddt;
    else if (ratio > d->dtmult_ub) newdt = olddt * d->dtmult_ub;
  }
  if (newdt > d->dtmax) newdt = d->dtmax;
  d->dt = newdt;
}

static void LagrangeLeapFrog(Domain *d) {
  Real_t *vnew = malloc(sizeof(Real_t) * d->numElem);
  Real_t *q_old = malloc(sizeof(Real_t) * d->numElem);
  CalcForceForNodes(d);
  CalcAccelerationForNodes(d);
  ApplyAccelerationBoundaryConditionsForNodes(d);
  CalcVelocityForNodes(d, d->dt, d->u_cut);
  CalcPositionForNodes(d, d->dt);
  CalcLagrangeElements(d, vnew);
  memcpy(q_old, d->q, sizeof(Real_t) * d->numElem);
  CalcQForElems(d, vnew);
  EvalEOSForElems(d, vnew, q_old);
  for (Index_t k = 0; k < d->numElem; ++k) d->v[k] = vnew[k];
  CalcTimeConstraintsForElems(d);
  free(q_old);
  free(vnew);
}

/* runs the cycles; returns the kinetic energy at the end */
double lulesh_run(Domain *d, int cycles) {
  for (int cycle = 0; cycle < cycles; ++cycle) {
    TimeIncrement(d, cycle);
    LagrangeLeapFrog(d);
    d->time += d->dt;
  }
  Real_t ke = 0.0;
  for (Index_t n = 0; n < d->numNode; ++n)
    ke += 0.5 * d->nodalMass[n] *
          (d->xd[n] * d->xd[n] + d->yd[n] * d->yd[n] + d->zd[n] * d->zd[n]);
  return ke;
}

/* ---- set-up: a cube of edge 1.125, symmetry planes x, y, z = 0, a smooth hot spot at the
   origin, a slightly jittered mesh ------------------------------------------------------ */

#define NODE_FIELDS(X) X(x) X(y) X(z) X(xd) X(yd) X(zd) X(xdd) X(ydd) X(zdd) X(fx) X(fy) X(fz) \
  X(nodalMass)
#define ELEM_FIELDS(X) X(e) X(p) X(q) X(v) X(volo) X(delv) X(vdov) X(arealg) X(ss) X(elemMass)
#define REAL_SCALARS(X) X(dt) X(time) X(dtcourant) X(dthydro) X(hgcoef) X(qlc_monoq)        \
  X(qqc_monoq) X(u_cut) X(e_cut) X(p_cut) X(q_cut) X(emin) X(pmin) X(eosvmax) X(refdens) X(cfl) \
  X(dvovmax) X(dtmax) X(dtmult_lb) X(dtmult_ub)

static void AllocateFields(Domain *d) {
#define ALLOC_NODE(f) d->f = calloc(d->numNode, sizeof(Real_t));
#define ALLOC_ELEM(f) d->f = calloc(d->numElem, sizeof(Real_t));
  NODE_FIELDS(ALLOC_NODE)
  ELEM_FIELDS(ALLOC_ELEM)
}

/* src's fields into dst's arrays (dst allocated with the same sizes) */
static void CopyState(Domain *dst, const Domain *src) {
#define COPY_NODE(f) memcpy(dst->f, src->f, sizeof(Real_t) * src->numNode);
#define COPY_ELEM(f) memcpy(dst->f, src->f, sizeof(Real_t) * src->numElem);
#define COPY_SCALAR(f) dst->f = src->f;
  NODE_FIELDS(COPY_NODE)
  ELEM_FIELDS(COPY_ELEM)
  REAL_SCALARS(COPY_SCALAR)
}

/* a shadow (or tangent) domain: own zeroed real arrays and scalars, the integer arrays shared */
static Domain *MakeShadow(const Domain *d) {
  Domain *s = malloc(sizeof(Domain));
  *s = *d;
  AllocateFields(s);
#define ZERO_SCALAR(f) s->f = 0.0;
  REAL_SCALARS(ZERO_SCALAR)
  return s;
}

static void ZeroShadow(Domain *s) {
#define ZERO_NODE(f) memset(s->f, 0, sizeof(Real_t) * s->numNode);
#define ZERO_ELEM(f) memset(s->f, 0, sizeof(Real_t) * s->numElem);
  NODE_FIELDS(ZERO_NODE)
  ELEM_FIELDS(ZERO_ELEM)
  REAL_SCALARS(ZERO_SCALAR)
}

static void BuildMesh(Domain *d, Index_t nx) {
  Index_t np = nx + 1;
  Real_t h = 1.125 / nx;
  d->numNode = np * np * np;
  d->numElem = nx * nx * nx;
  AllocateFields(d);
  for (Index_t k = 0, n = 0; k < np; ++k)
    for (Index_t j = 0; j < np; ++j)
      for (Index_t i = 0; i < np; ++i, ++n) {
        d->x[n] = h * i + (i > 0 && i < nx ? 0.03 * h * sin(1.3 * n) : 0.0);
        d->y[n] = h * j + (j > 0 && j < nx ? 0.03 * h * sin(2.1 * n) : 0.0);
        d->z[n] = h * k + (k > 0 && k < nx ? 0.03 * h * cos(0.7 * n) : 0.0);
      }
  d->nodelist = malloc(sizeof(Index_t) * 8 * d->numElem);
  for (Index_t k = 0, e = 0; k < nx; ++k)
    for (Index_t j = 0; j < nx; ++j)
      for (Index_t i = 0; i < nx; ++i, ++e) {
        Index_t n0 = (k * np + j) * np + i, *nl = &d->nodelist[8 * e];
        nl[0] = n0, nl[1] = n0 + 1, nl[2] = n0 + np + 1, nl[3] = n0 + np;
        for (Index_t a = 0; a < 4; ++a) nl[a + 4] = nl[a] + np * np;
      }
  d->numSymm = np * np;
  d->symmX = malloc(sizeof(Index_t) * d->numSymm);
  d->symmY = malloc(sizeof(Index_t) * d->numSymm);
  d->symmZ = malloc(sizeof(Index_t) * d->numSymm);
  for (Index_t a = 0, c = 0; a < np; ++a)
    for (Index_t b = 0; b < np; ++b, ++c) {
      d->symmX[c] = (a * np + b) * np;
      d->symmY[c] = a * np * np + b;
      d->symmZ[c] = a * np + b;
    }
  /* node -> element corners */
  d->nodeElemStart = calloc(d->numNode + 1, sizeof(Index_t));
  d->nodeElemCornerList = malloc(sizeof(Index_t) * 8 * d->numElem);
  for (Index_t i = 0; i < 8 * d->numElem; ++i) d->nodeElemStart[d->nodelist[i] + 1]++;
  for (Index_t n = 0; n < d->numNode; ++n) d->nodeElemStart[n + 1] += d->nodeElemStart[n];
  Index_t *fill = calloc(d->numNode, sizeof(Index_t));
  for (Index_t i = 0; i < 8 * d->numElem; ++i) {
    Index_t n = d->nodelist[i];
    d->nodeElemCornerList[d->nodeElemStart[n] + fill[n]++] = i;
  }
  free(fill);
}

static void InitState(Domain *d) {
  d->hgcoef = 3.0, d->qlc_monoq = 0.5, d->qqc_monoq = 2.0 / 3.0;
  d->u_cut = 1e-7, d->e_cut = 1e-7, d->p_cut = 1e-7, d->q_cut = 1e-7;
  d->emin = -1e15, d->pmin = 0.0, d->eosvmax = 1e9, d->refdens = 1.0;
  d->cfl = 1.0, d->dvovmax = 0.1, d->dtmax = 4e-3, d->dtmult_lb = 1.1, d->dtmult_ub = 1.2;
  Real_t dt = 1e20;
  for (Index_t k = 0; k < d->numElem; ++k) {
    Real_t xl[8], yl[8], zl[8], b[3][8], cx = 0, cy = 0, cz = 0;
    CollectNodal(&d->nodelist[8 * k], d->x, xl);
    CollectNodal(&d->nodelist[8 * k], d->y, yl);
    CollectNodal(&d->nodelist[8 * k], d->z, zl);
    d->volo[k] = CalcElemShapeFunctionDerivatives(xl, yl, zl, b);
    d->arealg[k] = CalcElemCharacteristicLength(xl, yl, zl, d->volo[k]);
    for (Index_t a = 0; a < 8; ++a) cx += xl[a] / 8, cy += yl[a] / 8, cz += zl[a] / 8;
    d->v[k] = 1.0;
    d->elemMass[k] = d->refdens * d->volo[k];
    d->e[k] = 0.1 + 3.0 * exp(-(cx * cx + cy * cy + cz * cz) / 0.15);
    d->p[k] = 2.0 / 3.0 * d->e[k];
    d->ss[k] = sqrt((2.0 / 3.0 * d->e[k] + 2.0 / 3.0 * d->p[k]) / d->refdens);
    if (0.5 * d->cfl * d->arealg[k] / d->ss[k] < dt) dt = 0.5 * d->cfl * d->arealg[k] / d->ss[k];
    for (Index_t a = 0; a < 8; ++a) d->nodalMass[d->nodelist[8 * k + a]] += d->elemMass[k] / 8;
  }
  /* a slow implosion: every element in compression, the viscosity on everywhere */
  for (Index_t n = 0; n < d->numNode; ++n) {
    d->xd[n] = -0.1 * d->x[n];
    d->yd[n] = -0.1 * d->y[n];
    d->zd[n] = -0.1 * d->z[n];
  }
  d->dt = dt < d->dtmax ? dt : d->dtmax;
}

/* ---- the benchmark --------------------------------------------------------------------- */

static int NX, CYCLES;
static Domain INIT, DOM, *SHADOW, *TANGENT, *SEED;
static volatile double sink;
static double tangent;

static double objective(void) {
  CopyState(&DOM, &INIT);
  return lulesh_run(&DOM, CYCLES);
}
static void primal(void) { sink = objective(); }
static void gradient(void) {
  CopyState(&DOM, &INIT);
  ZeroShadow(SHADOW);
  __enzyme_autodiff((void *)lulesh_run, enzyme_dup, &DOM, SHADOW, enzyme_const, CYCLES);
}
static void forward(void) {
  CopyState(&DOM, &INIT);
  CopyState(TANGENT, SEED);
  tangent = __enzyme_fwddiff((void *)lulesh_run, enzyme_dup, &DOM, TANGENT, enzyme_const, CYCLES);
}

static void verify(void) {
  gradient();
  bench_fd_check("dx", objective, INIT.x, SHADOW->x, INIT.numNode, 5, 1e-5);
  bench_fd_check("dy", objective, INIT.y, SHADOW->y, INIT.numNode, 3, 1e-5);
  bench_fd_check("dz", objective, INIT.z, SHADOW->z, INIT.numNode, 3, 1e-5);
  bench_fd_check("de", objective, INIT.e, SHADOW->e, INIT.numElem, 5, 1e-5);
  forward();
  bench_dir d[2] = {{INIT.x, SEED->x, INIT.numNode}, {INIT.e, SEED->e, INIT.numElem}};
  bench_fd_check_dir("tangent", objective, d, 2, tangent, 1e-5);
}

int main(int argc, char **argv) {
  NX = argc > 1 ? atoi(argv[1]) : 10;
  CYCLES = argc > 2 ? atoi(argv[2]) : 20;
  BuildMesh(&INIT, NX);
  InitState(&INIT);
  DOM = INIT;
  AllocateFields(&DOM);
  CopyState(&DOM, &INIT);
  SHADOW = MakeShadow(&INIT);
  TANGENT = MakeShadow(&INIT);
  SEED = MakeShadow(&INIT);
  for (Index_t n = 0; n < INIT.numNode; ++n) SEED->x[n] = 0.01 * sin(0.37 * n);
  for (Index_t k = 0; k < INIT.numElem; ++k) SEED->e[k] = cos(0.23 * k);
  char size[64];
  snprintf(size, sizeof size, "%d^3 elements %d cycles", NX, CYCLES);
  bench_report("lulesh_mini", size, primal, gradient, forward, verify, 7, &SHADOW->x[1]);
  return 0;
}
