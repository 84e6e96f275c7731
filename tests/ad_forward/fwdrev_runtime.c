// Runtime of the forward-vs-reverse check (see fwdrev_instrument.py): memory regions with
// layouts of float / pointer slots, shadow discovery, save/restore, random t and c, and
// the comparison <J t, c> (forward) == <t, J^T c> (reverse).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_DOUBLE = 0, KIND_FLOAT = 1, KIND_FP80 = 2, KIND_PTR = 3 };
enum { MAX_REGIONS = 4096, MAX_ROOTS = 64, MAX_SCALARS = 512 };

typedef struct {
  char *base;
  long size;
  const int *layout;  // offset * 4 + kind
  int n;
  int constant;
  int shadow;
  unsigned char *saved;
} region;

static region regions[MAX_REGIONS];
static int nregions;
static void *roots[MAX_ROOTS];
static int nroots;
static int site;
static int single;
typedef struct {
  char *addr;
  int kind;
  long double t, c;
} slot;
static slot *slots;
static long nslots;
static long double scalar_t[MAX_SCALARS];
static long double lhs, rhs, mag;
static unsigned long long state;

static void fail(const char *what) {
  printf("FWDREV-ERROR %d %s\n", site, what);
  fflush(stdout);
  exit(3);
}

static double next_random(void) {  // uniform in [-1, 1), deterministic per site
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

void fwdrev_region(void *base, long size, const int *layout, int n, int constant) {
  if (nregions == MAX_REGIONS) fail("too many regions");
  region *r = &regions[nregions++];
  r->base = base;
  r->size = size;
  r->layout = layout;
  r->n = n;
  r->constant = constant;
  r->shadow = 0;
  r->saved = NULL;
}

void fwdrev_root(void *shadow) {
  if (nroots == MAX_ROOTS) fail("too many shadow arguments");
  roots[nroots++] = shadow;
}

static int find(const void *p) {
  for (int i = 0; i < nregions; i++)
    if ((const char *)p >= regions[i].base && (const char *)p < regions[i].base + regions[i].size)
      return i;
  return -1;
}

static void mark_shadow(const void *p, int from_root) {
  if (p == NULL) return;
  int i = find(p);
  if (i < 0) {
    if (from_root) fail("a shadow argument points into no known region (heap?)");
    fail("a pointer inside a shadow points into no known region (heap?)");
  }
  region *r = &regions[i];
  if (r->shadow) return;
  if (r->constant) fail("a shadow lies in constant memory");
  r->shadow = 1;
  for (int k = 0; k < r->n; k++)
    if ((r->layout[k] & 3) == KIND_PTR) {
      void *q;
      memcpy(&q, r->base + (r->layout[k] >> 2), sizeof q);
      mark_shadow(q, 0);
    }
}

static void restore(void) {
  for (int i = 0; i < nregions; i++)
    if (regions[i].saved) memcpy(regions[i].base, regions[i].saved, regions[i].size);
}

void fwdrev_begin(int which, int single_precision) {
  site = which;
  single = single_precision;
  state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(which + 1) * 0x100000001B3ULL;
  for (int k = 0; k < nroots; k++) mark_shadow(roots[k], 1);
  nslots = 0;
  for (int i = 0; i < nregions; i++) {
    region *r = &regions[i];
    if (!r->constant) {
      r->saved = malloc(r->size ? r->size : 1);
      memcpy(r->saved, r->base, r->size);
    }
    if (r->shadow)
      for (int k = 0; k < r->n; k++) nslots += (r->layout[k] & 3) != KIND_PTR;
  }
  slots = calloc(nslots ? nslots : 1, sizeof(slot));
  long s = 0;
  for (int i = 0; i < nregions; i++) {
    region *r = &regions[i];
    if (!r->shadow) continue;
    for (int k = 0; k < r->n; k++) {
      int kind = r->layout[k] & 3;
      if (kind == KIND_PTR) continue;
      slot *x = &slots[s++];
      x->addr = r->base + (r->layout[k] >> 2);
      x->kind = kind;
      x->t = next_random();
      x->c = next_random();
      if (kind == KIND_FLOAT) {
        single = 1;
        x->t = (float)x->t;
        x->c = (float)x->c;
      }
    }
  }
  lhs = rhs = mag = 0;
}

static long double read_slot(const slot *x) {
  double d;
  float f;
  long double l;
  switch (x->kind) {
    case KIND_DOUBLE: memcpy(&d, x->addr, sizeof d); return d;
    case KIND_FLOAT: memcpy(&f, x->addr, sizeof f); return f;
    default: memcpy(&l, x->addr, 10); return l;
  }
}

static void write_slot(const slot *x, long double v) {
  double d = (double)v;
  float f = (float)v;
  switch (x->kind) {
    case KIND_DOUBLE: memcpy(x->addr, &d, sizeof d); break;
    case KIND_FLOAT: memcpy(x->addr, &f, sizeof f); break;
    default: memcpy(x->addr, &v, 10); break;
  }
}

void fwdrev_fill(int which) {
  for (long s = 0; s < nslots; s++) write_slot(&slots[s], which ? slots[s].c : slots[s].t);
}

double fwdrev_scalar_t(int j) {
  if (j >= MAX_SCALARS) fail("too many active scalars");
  double t = next_random();
  scalar_t[j] = t;
  return t;
}

void fwdrev_return_tangent(double r) {  // the reverse seeds a float return with 1.0
  lhs += r;
  mag += fabsl((long double)r);
}

void fwdrev_after_forward(void) {
  for (long s = 0; s < nslots; s++) {
    long double v = read_slot(&slots[s]) * slots[s].c;
    lhs += v;
    mag += fabsl(v);
  }
  restore();
}

void fwdrev_scalar_adjoint(int j, double g) {
  long double v = scalar_t[j] * g;
  rhs += v;
  mag += fabsl(v);
}

void fwdrev_end(void) {
  for (long s = 0; s < nslots; s++) {
    long double v = read_slot(&slots[s]) * slots[s].t;
    rhs += v;
    mag += fabsl(v);
  }
  /* relative to the outputs' scale, plus an absolute floor of about 50 ulps of 1: where the
     outputs cancel inside the function ((1/x) * x), both sides are rounding residues of the
     O(1) intermediate terms (1.1e-16 against 0), which the outputs' scale cannot see */
  long double tol = (single ? 1e-4L : 1e-9L) * mag + 1e-14L;
  if (!(fabsl(lhs - rhs) <= tol))
    printf("FWDREV-MISMATCH %d <Jt,c>=%.17Lg <t,J^Tc>=%.17Lg scale=%.3Lg slots=%ld\n", site,
           lhs, rhs, mag, nslots);
  else
    printf("FWDREV-OK %d <Jt,c>=%.17Lg <t,J^Tc>=%.17Lg scale=%.3Lg slots=%ld\n", site, lhs, rhs, mag, nslots);
  fflush(stdout);
  restore();
  for (int i = 0; i < nregions; i++) free(regions[i].saved);
  free(slots);
  slots = NULL;
  nslots = 0;
  nregions = 0;
  nroots = 0;
}
