"""Release functions and guaranteed frees (:mod:`irgrad.analysis.release_functions`,
:mod:`irgrad.analysis.frees`): which calls free what their argument leads to, and which
frees release every returning execution of an allocation."""

from __future__ import annotations

from analysis_helpers import c_module

from irgrad import ir
from irgrad.analysis.frees import guaranteed_free_of
from irgrad.analysis.release_functions import release_argument

SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { long n; void *raw; double *data; } vec;
__attribute__((noinline)) vec *vec_new(long n) {
  vec *v = malloc(sizeof *v);
  if (!v) abort();
  v->raw = malloc(n * sizeof(double) + 32);
  if (!v->raw) abort();
  v->data = (double *)(((uintptr_t)v->raw + 31) & ~(uintptr_t)31);
  return v;
}
__attribute__((noinline)) void vec_free(vec *v) { if (v) { free(v->raw); free(v); } }
__attribute__((noinline)) void aligned_free(double *p) { if (p) free(((void **)p)[-1]); }
__attribute__((noinline)) void free_and_clear(vec *v) { free(v->raw); v->raw = 0; }
__attribute__((noinline)) void free_and_log(vec *v) { printf("bye\n"); free(v); }
__attribute__((noinline)) void release_twice(vec *a, vec *b) { vec_free(a); vec_free(b); }

double use(long n) {
  vec *t = vec_new(n);
  double s = 0;
  for (long i = 0; i < n; i++) s += t->data[i] = i;
  vec_free(t);
  return s;
}

double scratch(const double *x, long n) {
  double *w = malloc(n * sizeof(double));
  if (!w) abort();  /* a path that never returns: the free still releases every return */
  for (long i = 0; i < n; i++) w[i] = x[i] * x[i];
  double s = 0;
  for (long i = 0; i < n; i++) s += w[n - 1 - i] * x[i];
  free(w);
  return s;
}

double maybe(const double *x, long n, int keep) {
  double *w = malloc(n * sizeof(double));
  for (long i = 0; i < n; i++) w[i] = x[i] * x[i];
  double s = 0;
  for (long i = 0; i < n; i++) s += w[n - 1 - i] * x[i];
  if (!keep) free(w);  /* not on every path */
  return s;
}
"""


def _fn(module: ir.Module, name: str) -> ir.Function:
    fn = module.get_function(name)
    assert fn is not None
    return fn


def _frees(fn: ir.Function) -> list[ir.CallBase]:
    return [i for i in fn.instructions() if isinstance(i, ir.CallBase)
            and i.called_function is not None
            and i.called_function.name in ("free", "vec_free")]


def test_release_functions() -> None:
    m = c_module(SOURCE)
    assert release_argument(_fn(m, "vec_free")) == 0
    assert release_argument(_fn(m, "aligned_free")) == 0
    assert release_argument(_fn(m, "free_and_clear")) is None  # stores into the object
    assert release_argument(_fn(m, "free_and_log")) is None  # prints
    assert release_argument(_fn(m, "release_twice")) is None  # two pointers
    assert release_argument(_fn(m, "vec_new")) is None


def test_guaranteed_frees() -> None:
    m = c_module(SOURCE)
    (release,) = _frees(_fn(m, "use"))
    alloc = guaranteed_free_of(release)
    assert alloc is not None and alloc.called_function.name == "vec_new"  # type: ignore[union-attr]
    (free,) = _frees(_fn(m, "scratch"))
    assert guaranteed_free_of(free) is not None
    (free,) = _frees(_fn(m, "maybe"))
    assert guaranteed_free_of(free) is None


# The optimizer duplicates a free into both arms of a branch (tail duplication); each
# copy alone is not on every returning path, the two together are. A third function
# frees on one arm only and leaks on the other.
TWO_FREES = r"""
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @log_it(double)

define double @both_arms(ptr %x, i1 %c) {
entry:
  %w = call ptr @malloc(i64 64)
  %v = load double, ptr %x
  store double %v, ptr %w
  br i1 %c, label %a, label %b
a:
  %r1 = load double, ptr %w
  call void @free(ptr %w)
  br label %done
b:
  call void @log_it(double %v)
  call void @free(ptr %w)
  br label %done
done:
  %r = phi double [ %r1, %a ], [ %v, %b ]
  ret double %r
}

define double @one_arm(ptr %x, i1 %c) {
entry:
  %w = call ptr @malloc(i64 64)
  %v = load double, ptr %x
  store double %v, ptr %w
  br i1 %c, label %a, label %b
a:
  call void @free(ptr %w)
  br label %done
b:
  br label %done
done:
  ret double %v
}
"""


def test_guaranteed_free_split_over_branches() -> None:
    m = ir.parse_module(TWO_FREES)
    frees = _frees(_fn(m, "both_arms"))
    assert len(frees) == 2
    assert all(guaranteed_free_of(f) is not None for f in frees)
    (free,) = _frees(_fn(m, "one_arm"))
    assert guaranteed_free_of(free) is None
