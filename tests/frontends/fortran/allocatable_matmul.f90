! A one-layer model in a module: a derived type with allocatable components, a module
! variable, arrays allocated and freed inside the differentiated function, matmul,
! dot_product and sum. The main program calls irgrad through a bind(C) interface to
! __enzyme_autodiff (markers: bind(C) module variables), checks the gradient against
! central differences and prints OK.
module layer
  use iso_c_binding
  implicit none
  type :: dense
    integer :: n, m
    real(c_double), allocatable :: w(:, :)
    real(c_double), allocatable :: b(:)
  end type
  real(c_double) :: scale = 0.5d0
contains
  function loss(x, n) result(e) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(dense) :: l
    real(c_double), allocatable :: h(:), y(:)
    integer :: i, j
    l%n = n
    l%m = 3
    allocate(l%w(3, n), l%b(3))
    do j = 1, n
      do i = 1, 3
        l%w(i, j) = 0.1d0 * (i + 2 * j) * x(j)
      end do
    end do
    l%b(:) = [0.1d0, -0.2d0, 0.3d0]
    allocate(h(3), y(3))
    h(:) = matmul(l%w, x) + l%b
    y(:) = tanh(h)
    e = scale * dot_product(y, y) + sum(x * x)
    deallocate(h)
  end function
end module

module enzyme
  use iso_c_binding
  implicit none
  integer(c_int), bind(c, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(c, name="enzyme_const") :: enzyme_const
end module

program main
  use iso_c_binding
  use layer
  use enzyme
  implicit none
  interface
    subroutine enzyme_autodiff(f, m1, x, dx, m2, n) bind(c, name="__enzyme_autodiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2
      real(c_double) :: x(*), dx(*)
      integer(c_int), value :: n
    end subroutine
    function enzyme_fwddiff(f, m1, x, tx, m2, n) result(t) bind(c, name="__enzyme_fwddiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2
      real(c_double) :: x(*), tx(*)
      integer(c_int), value :: n
      real(c_double) :: t
    end function
  end interface
  real(c_double) :: x(4), dx(4), xp(4), xm(4), tx(4), fd, worst, fwd
  integer :: k
  x = [0.3d0, -0.7d0, 1.1d0, 0.4d0]
  dx = 0
  call enzyme_autodiff(c_funloc(loss), enzyme_dup, x, dx, enzyme_const, 4)
  worst = 0
  do k = 1, 4
    xp = x; xp(k) = xp(k) + 1d-6
    xm = x; xm(k) = xm(k) - 1d-6
    fd = (loss(xp, 4) - loss(xm, 4)) / 2d-6
    print *, k, dx(k), fd
    worst = max(worst, abs(fd - dx(k)))
  end do
  tx = [1d0, -0.5d0, 0.25d0, 2d0]
  fwd = enzyme_fwddiff(c_funloc(loss), enzyme_dup, x, tx, enzyme_const, 4)
  print *, 'forward', fwd, 'reverse', dot_product(dx, tx)
  worst = max(worst, abs(fwd - dot_product(dx, tx)))
  if (minval(abs(dx)) < 1d-3) error stop 'a zero gradient proves nothing'
  if (worst < 1d-7) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
