! Modules with state, parameters, private helpers, interfaces and optional arguments.
module integrator
  implicit none
  private
  public :: set_tolerance, integrate, evaluations, func_iface
  real(8), parameter :: pi = 3.141592653589793d0
  real(8), save :: tol = 1d-8
  integer, save :: n_evals = 0

  abstract interface
    function func_iface(x) result(y)
      real(8), intent(in) :: x
      real(8) :: y
    end function func_iface
  end interface
contains
  subroutine set_tolerance(t)
    real(8), intent(in) :: t
    tol = t
  end subroutine set_tolerance

  integer function evaluations()
    evaluations = n_evals
  end function evaluations

  recursive function adapt(f, a, b, fa, fm, fb, whole, depth) result(r)
    procedure(func_iface) :: f
    real(8), intent(in) :: a, b, fa, fm, fb, whole
    integer, intent(in) :: depth
    real(8) :: r, m, lm, rm, flm, frm, left, right
    m = (a + b) / 2
    lm = (a + m) / 2
    rm = (m + b) / 2
    flm = f(lm)
    frm = f(rm)
    n_evals = n_evals + 2
    left = (m - a) / 6 * (fa + 4 * flm + fm)
    right = (b - m) / 6 * (fm + 4 * frm + fb)
    if (depth <= 0 .or. abs(left + right - whole) <= 15 * tol) then
      r = left + right + (left + right - whole) / 15
    else
      r = adapt(f, a, m, fa, flm, fm, left, depth - 1) + adapt(f, m, b, fm, frm, fb, right, depth - 1)
    end if
  end function adapt

  function integrate(f, a, b, max_depth) result(r)
    procedure(func_iface) :: f
    real(8), intent(in) :: a, b
    integer, intent(in), optional :: max_depth
    real(8) :: r, fa, fb, fm
    integer :: d
    d = 30
    if (present(max_depth)) d = max_depth
    fa = f(a)
    fb = f(b)
    fm = f((a + b) / 2)
    n_evals = n_evals + 3
    r = adapt(f, a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), d)
  end function integrate
end module integrator

module integrands
  implicit none
contains
  function bell(x) result(y)
    real(8), intent(in) :: x
    real(8) :: y
    y = exp(-x * x)
  end function bell
end module integrands
