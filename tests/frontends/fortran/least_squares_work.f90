! A least-squares fit with work arrays the classic way: automatic arrays sized by dummy
! arguments, allocate/deallocate and move_alloc inside the differentiated function, an
! intent(inout) accumulator, and optional arguments tested with present(). The program
! checks the gradient against central differences and forward against reverse mode, and
! prints OK.
module least_squares
  use iso_c_binding
  implicit none
  private
  public :: loss
  integer, parameter :: dp = c_double

contains

  subroutine residuals(n, m, p, r, weights, scale)
    integer, intent(in) :: n, m
    real(dp), intent(in) :: p(n)
    real(dp), intent(out) :: r(m)
    real(dp), intent(in), optional :: weights(m)
    real(dp), intent(in), optional :: scale
    real(dp) :: t(m), model(m)
    integer :: i
    do i = 1, m
      t(i) = real(i - 1, dp) / (m - 1)
    end do
    model = p(1) * exp(-p(2) * t) + p(3) * t**2
    r = model - cos(t)
    if (present(weights)) r = r * weights
    if (present(scale)) r = r * scale
  end subroutine

  subroutine accumulate(total, r)
    real(dp), intent(inout) :: total
    real(dp), intent(in) :: r(:)
    total = total + 0.5_dp * sum(r**2)
  end subroutine

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    integer, parameter :: m = 11
    real(dp), allocatable :: r(:), w(:)
    real(dp) :: work(2 * n)
    integer :: i

    allocate(r(m), w(m))
    do i = 1, m
      w(i) = 1.0_dp + 0.1_dp * i
    end do
    l = 0
    call residuals(n, m, x, r)
    call accumulate(l, r)
    call residuals(n, m, x, r, weights=w)
    call accumulate(l, r)
    call residuals(n, m, x, r, scale=x(n))
    call accumulate(l, r)
    work(1:n) = x
    work(n+1:) = x**2
    call accumulate(l, work)
    call move_alloc(r, w)                 ! w's weights freed, w takes the residuals
    l = l + 0.1_dp * sum(w)
    deallocate(w)
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
  use least_squares
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
