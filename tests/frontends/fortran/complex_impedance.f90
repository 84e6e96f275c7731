! Fitting an equivalent circuit to impedance spectroscopy data, the way electrochemistry
! codes do it in Fortran: complex(8) impedances of a resistor, a constant-phase element
! and a Warburg element (complex division, exp, sqrt, abs, and z**k with a variable k,
! which flang computes with its runtime's _FortranAzpowi), plus a complex(4) polynomial
! term (_FortranAcpowi). One parameter is exactly zero, where z**k's derivative must be
! exact (k z**(k-1), not k z**k / z). loss() is differentiated through bind(C)
! interfaces to __enzyme_autodiff and __enzyme_fwddiff; the program checks the gradient
! against central differences and forward against reverse mode, and prints OK.
module impedance
  use iso_c_binding
  implicit none
  private
  public :: loss

contains

  function model(p, omega) result(z)
    real(c_double), intent(in) :: p(:), omega
    complex(c_double_complex) :: z, jw, cpe
    integer :: k
    jw = cmplx(0d0, omega, kind=c_double_complex)
    cpe = 1d0 / (p(3) * exp(p(4) * log(jw)))          ! 1 / (Q (j w)^alpha)
    z = p(1) + 1d0 / (1d0 / p(2) + 1d0 / cpe)         ! R0 + (R1 || CPE)
    z = z + p(5) / sqrt(jw)                           ! Warburg diffusion
    do k = 1, 3                                       ! a small polynomial correction
      z = z + cmplx(p(6), 0.01d0 * omega, kind=c_double_complex)**k / (10d0 * k)
      z = z + cmplx(p(6), 0d0, kind=c_double_complex)**k * (0.2d0 * omega)  ! 0**k at p6 = 0
    end do
  end function

  function loss(p, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: p(n)
    real(c_double) :: l, omega
    complex(c_double_complex) :: z, measured
    complex(c_float_complex) :: c
    integer :: s, k

    l = 0
    do s = 1, 12
      omega = 10d0 ** (0.3d0 * s - 2d0)
      measured = cmplx(1d0 + 2d0 / (1d0 + omega), -0.5d0 * omega / (1d0 + omega**2), &
                       kind=c_double_complex)
      z = model(p, omega)
      l = l + abs(z - measured)**2 / abs(measured)
    end do
    do k = 1, 2
      c = cmplx(real(p(7), c_float), 0.5, kind=c_float_complex)
      l = l + real(real(c**(k + 1)), c_double) * 1d-1
    end do
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
  use impedance
  use enzyme
  implicit none
  integer, parameter :: n = 7
  real(c_double) :: p(n), grad(n), tp(n), tm(n), dir(n), fd, worst, fwd, h
  integer :: k

  p = [0.9d0, 1.8d0, 0.7d0, 0.85d0, 0.3d0, 0d0, 0.4d0]   ! p(6) = 0 exactly
  grad = 0
  call enzyme_autodiff(c_funloc(loss), enzyme_dup, p, grad, enzyme_const, n)
  worst = 0
  do k = 1, n
    h = 1d-6
    if (k == 7) h = 1d-3   ! (the complex(4) term is computed in single precision)
    tp = p; tp(k) = tp(k) + h
    tm = p; tm(k) = tm(k) - h
    fd = (loss(tp, n) - loss(tm, n)) / (2 * h)
    worst = max(worst, abs(fd - grad(k)) / max(1d0, abs(fd)))
  end do
  do k = 1, n
    dir(k) = sin(0.9d0 * k)
  end do
  fwd = enzyme_fwddiff(c_funloc(loss), enzyme_dup, p, dir, enzyme_const, n)
  print *, 'worst', worst, 'forward', fwd, 'reverse', dot_product(grad, dir)
  worst = max(worst, abs(fwd - dot_product(grad, dir)) / max(1d0, abs(fwd)))
  if (minval(abs(grad)) < 1d-6) error stop 'a zero gradient proves nothing'
  if (worst < 1d-4) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
