! Classical RK4 the way ODE libraries write it: the right-hand side is a procedure(rhs_iface)
! dummy (an abstract interface) with assumed-shape arrays, the stage vectors automatic
! arrays of the state's size. loss() integrates a Lotka-Volterra system chosen through a
! procedure pointer, and a damped oscillator whose right-hand side is an internal
! procedure reading the host's parameters (flang passes it through a trampoline). The
! program checks the gradient against central differences and forward against reverse
! mode, and prints OK.
module ode_solvers
  use iso_c_binding
  implicit none
  private
  public :: loss, rhs_iface, rk4_integrate
  integer, parameter :: dp = c_double

  abstract interface
    subroutine rhs_iface(t, y, dydt)
      import :: dp
      real(dp), intent(in) :: t, y(:)
      real(dp), intent(out) :: dydt(:)
    end subroutine
  end interface

contains

  subroutine rk4_integrate(f, t0, t1, nstep, y)
    procedure(rhs_iface) :: f
    real(dp), intent(in) :: t0, t1
    integer, intent(in) :: nstep
    real(dp), intent(inout) :: y(:)
    real(dp), dimension(size(y)) :: k1, k2, k3, k4
    real(dp) :: h, t
    integer :: i
    h = (t1 - t0) / nstep
    t = t0
    do i = 1, nstep
      call f(t, y, k1)
      call f(t + h / 2, y + h / 2 * k1, k2)
      call f(t + h / 2, y + h / 2 * k2, k3)
      call f(t + h, y + h * k3, k4)
      y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
      t = t + h
    end do
  end subroutine

  subroutine lotka_volterra(t, y, dydt)
    real(dp), intent(in) :: t, y(:)
    real(dp), intent(out) :: dydt(:)
    dydt(1) = 1.1d0 * y(1) - 0.4d0 * y(1) * y(2)
    dydt(2) = 0.1d0 * y(1) * y(2) - 0.4d0 * y(2) + 0d0 * t
  end subroutine

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    real(dp) :: y(2), z(2), damping, omega
    procedure(rhs_iface), pointer :: model => null()

    y = x(1:2)
    model => lotka_volterra
    call rk4_integrate(model, 0d0, 2d0, 40, y)
    damping = x(3)
    omega = x(4)
    z = [1d0, 0d0]
    call rk4_integrate(oscillator, 0d0, 3d0, 60, z)
    l = y(1) * y(2) + z(1)**2 + 0.5d0 * z(2)

  contains

    subroutine oscillator(t, u, dudt)
      real(dp), intent(in) :: t, u(:)
      real(dp), intent(out) :: dudt(:)
      dudt(1) = u(2)
      dudt(2) = -omega**2 * u(1) - damping * u(2) + 0.1d0 * sin(t)
    end subroutine

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
  use ode_solvers
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
