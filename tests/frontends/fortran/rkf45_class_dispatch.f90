! An adaptive Runge-Kutta-Fehlberg 4(5) integrator over an abstract ODE system, the
! object-oriented way: the right-hand side is a deferred type-bound procedure, dispatched
! through flang's type description (the class(ode_system) descriptor's addendum), an
! extended type carries the parameters, the step size is controlled in a do while loop
! with exit, and the tolerance is an optional argument. The program checks the gradient
! against central differences and forward against reverse mode, and prints OK.
module rkf_solver
  use, intrinsic :: iso_fortran_env, only: dp => real64
  use iso_c_binding, only: c_int, c_double
  implicit none
  private
  public :: loss

  type, abstract :: ode_system
  contains
    procedure(rhs_iface), deferred :: rhs
  end type

  abstract interface
    subroutine rhs_iface(self, t, y, f)
      import :: ode_system, dp
      class(ode_system), intent(in) :: self
      real(dp), intent(in) :: t, y(:)
      real(dp), intent(out) :: f(:)
    end subroutine
  end interface

  type, extends(ode_system) :: pendulum
    real(dp) :: g_over_l = 9.81_dp, damping = 0.1_dp
  contains
    procedure :: rhs => pendulum_rhs
  end type

contains

  subroutine pendulum_rhs(self, t, y, f)
    class(pendulum), intent(in) :: self
    real(dp), intent(in) :: t, y(:)
    real(dp), intent(out) :: f(:)
    f(1) = y(2)
    f(2) = -self%g_over_l * sin(y(1)) - self%damping * y(2) + 0.0_dp * t
  end subroutine

  subroutine rkf45(sys, t0, t1, y, tol)
    class(ode_system), intent(in) :: sys
    real(dp), intent(in) :: t0, t1
    real(dp), intent(inout) :: y(:)
    real(dp), intent(in), optional :: tol
    real(dp), dimension(size(y)) :: k1, k2, k3, k4, k5, k6, y4, y5
    real(dp) :: t, h, err, eps
    integer :: nsteps
    eps = 1e-8_dp
    if (present(tol)) eps = tol
    t = t0
    h = (t1 - t0) / 16
    nsteps = 0
    do while (t < t1)
      if (t + h > t1) h = t1 - t
      call sys%rhs(t, y, k1)
      call sys%rhs(t + h/4, y + h*k1/4, k2)
      call sys%rhs(t + 3*h/8, y + h*(3*k1 + 9*k2)/32, k3)
      call sys%rhs(t + 12*h/13, y + h*(1932*k1 - 7200*k2 + 7296*k3)/2197, k4)
      call sys%rhs(t + h, y + h*(439*k1/216 - 8*k2 + 3680*k3/513 - 845*k4/4104), k5)
      call sys%rhs(t + h/2, y + h*(-8*k1/27 + 2*k2 - 3544*k3/2565 + 1859*k4/4104 &
                   - 11*k5/40), k6)
      y4 = y + h*(25*k1/216 + 1408*k3/2565 + 2197*k4/4104 - k5/5)
      y5 = y + h*(16*k1/135 + 6656*k3/12825 + 28561*k4/56430 - 9*k5/50 + 2*k6/55)
      err = maxval(abs(y5 - y4))
      nsteps = nsteps + 1
      if (nsteps > 10000) exit
      if (err <= eps .or. h < 1e-6_dp) then
        t = t + h
        y = y4
      end if
      h = 0.9_dp * h * min(4.0_dp, max(0.1_dp, (eps / max(err, 1e-14_dp))**0.2_dp))
    end do
  end subroutine

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    type(pendulum) :: p
    real(dp) :: y(2)
    p%g_over_l = x(1) * 10
    p%damping = x(2)
    y = x(3:4)
    call rkf45(p, 0.0_dp, 1.0_dp, y, tol=1e-9_dp)
    l = y(1)**2 + y(2)
  end function

end module

module enzyme
  use iso_c_binding
  implicit none
  integer(c_int), bind(c, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(c, name="enzyme_const") :: enzyme_const
  interface
    subroutine enzyme_autodiff(f, m1, x, dx, m2, n) bind(c, name="__enzyme_autodiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_double) :: x(*), dx(*)
    end subroutine
    function enzyme_fwddiff(f, m1, x, tx, m2, n) result(t) bind(c, name="__enzyme_fwddiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_double) :: x(*), tx(*)
      real(c_double) :: t
    end function
  end interface
end module

program main
  use iso_c_binding
  use rkf_solver
  use enzyme
  implicit none
  integer, parameter :: n = 4
  real(c_double) :: x(n), grad(n), xp(n), xm(n), dir(n), fd, worst, fwd, h
  integer :: k

  
  do k = 1, n
    x(k) = 0.4d0 + 0.3d0 * cos(1.7d0 * k)
  end do
  grad = 0
  call enzyme_autodiff(c_funloc(loss), enzyme_dup, x, grad, enzyme_const, n)
  worst = 0
  do k = 1, n
    h = 1d-6 * max(1d0, abs(x(k)))
    xp = x; xp(k) = xp(k) + h
    xm = x; xm(k) = xm(k) - h
    fd = (loss(xp, n) - loss(xm, n)) / (2 * h)
    worst = max(worst, abs(fd - grad(k)) / max(1d0, abs(fd)))
  end do
  do k = 1, n
    dir(k) = sin(0.9d0 * k)
  end do
  fwd = enzyme_fwddiff(c_funloc(loss), enzyme_dup, x, dir, enzyme_const, n)
  print *, 'worst', worst, 'forward', fwd, 'reverse', dot_product(grad, dir)
  worst = max(worst, abs(fwd - dot_product(grad, dir)) / max(1d0, abs(fwd)))
  if (minval(abs(grad)) == 0) error stop 'a zero gradient proves nothing'
  if (worst < 1d-6) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
