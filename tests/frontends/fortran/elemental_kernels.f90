! Kernels in modern Fortran style: an elemental function applied to an array, pure
! functions and subroutines, do concurrent and forall, and the intrinsic math numerical
! codes use (exp, log, sqrt, tanh, atan2, hypot, sign, abs, max/min, ** with integer, real
! and negative exponents, 10**x, mod and modulo of reals: flang's runtime at every level),
! and a select case on a character module variable (a runtime comparison at -O0). The program checks the gradient against central
! differences and forward against reverse mode, and prints OK.
module kernels
  use iso_c_binding
  implicit none
  private
  public :: loss
  integer, parameter :: dp = c_double
  character(len=16) :: boundary = 'periodic'

contains

  elemental function softplus(z) result(s)
    real(dp), intent(in) :: z
    real(dp) :: s
    s = max(z, 0d0) + log(1d0 + exp(-abs(z)))
  end function

  pure function polar_energy(px, py) result(e)
    real(dp), intent(in) :: px, py
    real(dp) :: e
    e = hypot(px, py) * atan2(py, px) + sign(1d0, px) * abs(py)**1.5d0
  end function

  pure subroutine normalize(v)
    real(dp), intent(inout) :: v(:)
    v = v / sqrt(sum(v**2))
  end subroutine

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    real(dp) :: a(n), b(n), g(n, n)
    integer :: i, j

    do concurrent (i = 1:n)
      a(i) = tanh(x(i)) + x(i)**3 - 0.5d0 * x(i)**2.5d0
    end do
    forall (i = 1:n, j = 1:n) g(i, j) = exp(-(x(i) - x(j))**2)
    b = softplus(2d0 * x - 1d0)
    call normalize(b)
    l = sum(a * b) + sum(g) / n
    do i = 1, n - 1
      l = l + polar_energy(x(i), x(i + 1) - 0.6d0)
      l = l + max(x(i), x(i + 1)) * min(x(i), 0.5d0)
    end do
    l = l + sqrt(x(1)) * log(x(2)) + x(3)**(-2) + 10d0**x(4)
    select case (trim(boundary))            ! wrapping coordinates: mod and modulo of reals
    case ('periodic')
      l = l + sum(modulo(3 * x - 1.7d0, 1.1d0)**2) + mod(5 * x(n), 0.7d0)
    case default
      l = l + sum(x)
    end select
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
  use kernels
  use enzyme
  implicit none
  integer, parameter :: n = 6
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
