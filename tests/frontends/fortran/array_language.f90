! Fortran's array language in one loss: explicit-shape and assumed-shape dummies, array
! sections (a(2:n-1), strided x(1:n:3)), where/elsewhere, merge, sum, maxval, minval,
! maxloc (an integer result array assigned through the runtime at -O0), product (with a
! zero factor and with a mask: flang's runtime at -O0), matmul, dot_product, transpose,
! spread, reshape and pack (of a vector, a strided section and a matrix: flang's runtime
! at every level). The program checks the gradient against
! central differences and forward against reverse mode, and prints OK.
module array_model
  use iso_c_binding
  implicit none
  private
  public :: loss
  integer, parameter :: dp = c_double

contains

  subroutine smooth(n, u, v)
    integer, intent(in) :: n
    real(dp), intent(in) :: u(n)
    real(dp), intent(out) :: v(n)
    v(1) = u(1)
    v(n) = u(n)
    v(2:n-1) = 0.25d0 * u(1:n-2) + 0.5d0 * u(2:n-1) + 0.25d0 * u(3:n)
  end subroutine

  function clipped_energy(u) result(e)
    real(dp), intent(in) :: u(:)
    real(dp) :: e
    real(dp) :: w(size(u))
    where (u > 0.5d0)
      w = u**2
    elsewhere (u < -0.2d0)
      w = -u
    elsewhere
      w = 0.5d0 * u
    end where
    e = sum(w) + sum(merge(u, 2d0 * u, u > 0.45d0))
  end function

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    real(dp) :: a(3, 4), b(4, 3), c(3, 3), s(n), p(3), m(3, 4)
    real(dp), allocatable :: pos(:)
    integer :: imax(1), k

    a = reshape(x(1:12), [3, 4])
    b = transpose(a)
    c = matmul(a, b)
    call smooth(n, x, s)
    l = clipped_energy(s)
    l = l + sum(c) / 10 + dot_product(a(:, 2), a(:, 3))
    l = l + maxval(x(5:n)) - minval(a(2, :))
    s(3) = 0                                    ! a zero factor: exact partials, no NaN
    l = l + product(x(1:4)) + product(s(1:7)) &
        + product(a(1:3:2, :), mask=a(1:3:2, :) > 0.2d0)
    imax = maxloc(x(1:8))
    l = l + x(imax(1)) * 0.5d0
    p = x(1:3)
    m = spread(p, dim=2, ncopies=4)
    l = l + sum(m * a)
    pos = pack(x, x > 0.5d0)
    l = l + sum(pos**3)
    pos = pack(x(1:n:3), x(1:n:3) < 0.4d0)
    l = l + sum(pos * [(k, k = 1, size(pos))])
    l = l + sum(pack(a, a > 0.3d0 .and. a < 0.6d0)**2)
    l = l + sum(a(1:3:2, 2:4)**2)
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
  use array_model
  use enzyme
  implicit none
  integer, parameter :: n = 14
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
