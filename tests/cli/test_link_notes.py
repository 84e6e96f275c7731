"""The link step's note ``no input of this link defines 'X'`` names only functions that
nothing in the link defines: not Enzyme's ``__enzyme_*`` entry points (an error about
using them would otherwise end with a note about them), and not a library function the
native libraries of the link define (``gamma`` from ``-lm``, LAPACK's ``dsyev_``)."""

from __future__ import annotations

from pathlib import Path

from conftest import Runner

ENZYME_ARG = """
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double sq(const double *x, int n) { return x[0] * x[n - 1]; }
__attribute__((noinline)) void grad(double (*f)(const double *, int), double *x, double *d) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 2);
}
int main(void) { double x[2] = {1, 2}, d[2] = {0}; grad(sq, x, d); return 0; }
"""

LIBRARY_CALL = """
#include <math.h>
double __enzyme_autodiff(void *, ...);
double my_extern(double);
double f(double x) { return CALL(x); }
int main(void) { return __enzyme_autodiff((void *)f, 1.5) > 0; }
"""

LAPACK_CALL = """
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
void dsyev_(const char *, const char *, const int *, double *, const int *, double *,
            double *, const int *, int *);
double f(double *a) {
  int n = 2, lw = 10, info;
  double w[2], work[10];
  dsyev_("N", "U", &n, a, &n, w, work, &lw, &info);
  return w[0];
}
int main(void) { double a[4] = {2, 1, 1, 2}, d[4] = {0}; __enzyme_autodiff((void *)f, enzyme_dup, a, d); return 0; }
"""


def _error(tmp_path: Path, irgrad: Runner, source: str, *libs: str) -> str:
    (tmp_path / "p.c").write_text(source)
    proc = irgrad("cc", "-O2", "p.c", "-o", "p", *libs)
    assert proc.returncode == 2, proc.stderr
    return proc.stderr.decode()


def test_no_note_about_enzyme_entry_points(tmp_path: Path, irgrad: Runner) -> None:
    err = _error(tmp_path, irgrad, ENZYME_ARG)
    assert "first argument of __enzyme_autodiff" in err
    assert "note: no input of this link defines" not in err


def test_no_note_about_a_function_of_the_c_library(tmp_path: Path, irgrad: Runner) -> None:
    err = _error(tmp_path, irgrad, LIBRARY_CALL.replace("CALL", "gamma"), "-lm")
    assert "No derivative found for gamma" in err
    assert "note: no input of this link defines" not in err


def test_no_note_about_a_function_of_an_l_library(tmp_path: Path, irgrad: Runner) -> None:
    err = _error(tmp_path, irgrad, LAPACK_CALL, "-llapack")
    assert "No derivative found for dsyev_" in err
    assert "note: no input of this link defines" not in err


def test_a_function_nothing_defines_keeps_its_note(tmp_path: Path, irgrad: Runner) -> None:
    err = _error(tmp_path, irgrad, LIBRARY_CALL.replace("CALL", "my_extern"), "-lm")
    assert "note: no input of this link defines 'my_extern'" in err


def test_language_runtime_functions_get_no_note() -> None:
    """flang's runtime (``_FortranA*``) comes with a Fortran link: no note about it; a
    function of the program that no input defines keeps its note."""
    from irgrad.errors import DifferentiationError
    from irgrad.frontends.link_step import _with_native_origin
    from irgrad.frontends.lto_inputs import LinkPlan

    plan = LinkPlan(undefined={"_FortranAAssign", "_QQmain", "my_kernel", "__enzyme_fwddiff"})
    err = DifferentiationError("No derivative found for _FortranAAssign; my_kernel; "
                               "__enzyme_fwddiff")
    out = _with_native_origin(err, ["_FortranAAssign", "my_kernel", "__enzyme_fwddiff"], plan)
    assert out.message.count("note:") == 1
    assert "no input of this link defines 'my_kernel'" in out.message
