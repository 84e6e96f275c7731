! What flang hands to its runtime besides the array intrinsics, in a small smoothing
! model: minloc/maxloc/count/any and integer maxval (integers only: no derivative, but
! runtime calls at -O0), a strided section of an assumed-shape array passed to an F77-style
! routine (_FortranACopyInAssign/_FortranACopyOutAssign at every level, with and without
! copy-out), a local array of a derived type with an allocatable component
! (_FortranAInitialize) and a polymorphic object allocated with source=
! (_FortranAAllocatableDeallocatePolymorphic). The program
! checks the gradient against central differences and forward against reverse mode, and
! prints OK.
subroutine sumsq(n, v, out)         ! F77 style, read only (no copy-out: a null variable)
  integer :: n
  double precision, intent(in) :: v(n)
  double precision, intent(out) :: out
  out = sum(v * v * v)
end subroutine

subroutine damp(n, v, c)            ! F77 style: explicit shape, modified in place
  integer :: n
  double precision :: v(n), c
  integer :: i
  do i = 1, n
    v(i) = c * v(i) * v(i) + sin(v(i))
  end do
end subroutine

module smoothing
  use iso_c_binding
  implicit none
  private
  public :: loss

  interface
    subroutine sumsq(n, v, out)
      integer :: n
      double precision, intent(in) :: v(n)
      double precision, intent(out) :: out
    end subroutine
  end interface

  type :: track
    real(c_double), allocatable :: v(:)
    real(c_double) :: scale = 2d0          ! default initialization (in the shadow: 0)
    real(c_double) :: offsets(2) = [0.5d0, -0.5d0]
  end type

  type, abstract :: penalty
  contains
    procedure(eval_iface), deferred :: eval
  end type
  abstract interface
    function eval_iface(self, r) result(e)
      import :: penalty, c_double
      class(penalty), intent(in) :: self
      real(c_double), intent(in) :: r
      real(c_double) :: e
    end function
  end interface
  type, extends(penalty) :: quadratic
    real(c_double) :: k
  contains
    procedure :: eval => quadratic_eval
  end type

contains

  function quadratic_eval(self, r) result(e)
    class(quadratic), intent(in) :: self
    real(c_double), intent(in) :: r
    real(c_double) :: e
    e = 0.5d0 * self%k * r * r
  end function

  subroutine smooth_odd(a)          ! every other element of a, through the F77 routine
    real(c_double), intent(inout) :: a(:)
    external :: damp
    call damp(size(a(1::2)), a(1::2), 0.3d0)
  end subroutine

  function even_cubes(a) result(q)   ! copied in only
    real(c_double), intent(in) :: a(:)
    real(c_double) :: q
    call sumsq(size(a(2::2)), a(2::2), q)
  end function

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l, w(n)
    type(track) :: t(2)
    class(penalty), allocatable :: p
    integer :: k, j
    w = x
    call smooth_odd(w)
    t(1)%v = w * w
    t(2)%v = x(n:1:-1) + w
    k = minloc(t(2)%v, 1)
    j = maxval(maxloc(w))
    t(1)%scale = x(2)
    t(2)%offsets(2) = t(2)%offsets(2) * x(3)
    l = t(1)%scale * sum(t(1)%v) + t(2)%scale * t(2)%v(k) * w(j) + count(x > 0d0) &
        + sum(t(2)%offsets) * x(4)
    if (any(w > 100d0)) l = l + 1d0
    allocate(p, source=quadratic(k=1.5d0))
    l = l + p%eval(sum(w)) + even_cubes(w)
    deallocate(p)
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
  use smoothing
  use enzyme
  implicit none
  integer, parameter :: n = 7
  real(c_double) :: x(n), grad(n), tp(n), tm(n), dir(n), fd, worst, fwd, h
  integer :: k

  x = [0.4d0, -0.7d0, 1.1d0, 0.2d0, -0.3d0, 0.9d0, 0.6d0]
  grad = 0
  call enzyme_autodiff(c_funloc(loss), enzyme_dup, x, grad, enzyme_const, n)
  worst = 0
  h = 1d-6
  do k = 1, n
    tp = x; tp(k) = tp(k) + h
    tm = x; tm(k) = tm(k) - h
    fd = (loss(tp, n) - loss(tm, n)) / (2 * h)
    worst = max(worst, abs(fd - grad(k)) / max(1d0, abs(fd)))
  end do
  do k = 1, n
    dir(k) = sin(0.9d0 * k)
  end do
  fwd = enzyme_fwddiff(c_funloc(loss), enzyme_dup, x, dir, enzyme_const, n)
  print *, 'worst', worst, 'forward', fwd, 'reverse', dot_product(grad, dir)
  worst = max(worst, abs(fwd - dot_product(grad, dir)) / max(1d0, abs(fwd)))
  if (minval(abs(grad)) < 1d-6) error stop 'a zero gradient proves nothing'
  if (worst < 1d-6) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
