! A ring of beads on springs with a Gaussian pair density, in the style of small
! simulation codes: arrays of derived types allocated with stat=, periodic neighbours by
! cshift, an n x n distance matrix built with spread, a density from sum(..., dim=2),
! norm2, windows that reallocate on every assignment in a loop, allocate(source=) of a
! reshape, maxval/minval, a masked sum; and a single-precision coarse model (real(4)
! runtime routines). Both energies are differentiated through bind(C) interfaces to
! __enzyme_autodiff and __enzyme_fwddiff, checked against central differences and
! forward against reverse mode; the program prints OK.
module chain
  use iso_c_binding
  implicit none
  private
  public :: chain_energy, coarse_energy

  type :: bead
    real(c_double) :: pos = 0, mass = 1
  end type
  type :: neighbours
    real(c_double), allocatable :: gap(:)
  end type
  real(c_double), parameter :: rest_length = 0.5d0, stiffness = 3d0

contains

  function chain_energy(x, n) result(e) bind(c, name="chain_energy")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    type(bead), allocatable :: beads(:)
    type(neighbours), allocatable :: lists(:)
    real(c_double), allocatable :: dist(:, :), density(:), window(:), flat(:)
    integer :: i, k, ierr

    allocate(beads(n), lists(1), stat=ierr)
    if (ierr /= 0) error stop 'cannot allocate the chain'
    beads%pos = x
    beads%mass = [(1d0 + 0.1d0 * i, i = 1, n)]
    lists(1)%gap = cshift(beads%pos, 1) - beads%pos
    e = 0.5d0 * stiffness * sum((lists(1)%gap - rest_length)**2)

    dist = spread(x, 1, n) - spread(x, 2, n)
    density = sum(exp(-dist**2), dim=2)
    e = e + dot_product(beads%mass, density) / n + 0.1d0 * norm2(density)

    do k = 2, n
      window = beads(1:k)%pos * beads(1:k)%mass
      e = e + 0.01d0 * (maxval(window) - minval(window))
    end do

    allocate(flat, source=reshape(dist, [n * n]))
    e = e + 0.001d0 * sum(flat**2, mask=flat > 0)
    deallocate(beads, lists, flat, stat=ierr)
  end function

  function coarse_energy(x, n) result(e) bind(c, name="coarse_energy")
    integer(c_int), value :: n
    real(c_float), intent(in) :: x(n)
    real(c_float) :: e
    real(c_float), allocatable :: w(:, :), y(:)
    w = spread(x, 1, 2)
    y = matmul(w, x)
    e = sum(y**2) + dot_product(x, x) + norm2(x) + maxval(x)
  end function

end module

module enzyme
  use iso_c_binding
  implicit none
  integer(c_int), bind(c, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(c, name="enzyme_const") :: enzyme_const
  interface
    subroutine autodiff(f, m1, x, dx, m2, n) bind(c, name="__enzyme_autodiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_double) :: x(*), dx(*)
    end subroutine
    function fwddiff(f, m1, x, tx, m2, n) result(t) bind(c, name="__enzyme_fwddiff")
      import :: c_funptr, c_double, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_double) :: x(*), tx(*)
      real(c_double) :: t
    end function
    subroutine autodiff4(f, m1, x, dx, m2, n) bind(c, name="__enzyme_autodiff_real4")
      import :: c_funptr, c_float, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_float) :: x(*), dx(*)
    end subroutine
    function fwddiff4(f, m1, x, tx, m2, n) result(t) bind(c, name="__enzyme_fwddiff_real4")
      import :: c_funptr, c_float, c_int
      type(c_funptr), value :: f
      integer(c_int), value :: m1, m2, n
      real(c_float) :: x(*), tx(*)
      real(c_float) :: t
    end function
  end interface
end module

program main
  use iso_c_binding
  use chain
  use enzyme
  implicit none
  integer, parameter :: n = 5
  real(c_double) :: x(n), dx(n), xp(n), xm(n), dir(n), fd, worst, fwd
  real(c_float) :: y(n), dy(n), yp(n), ym(n), diry(n), fwd4, worst4
  integer :: k

  x = [0.3d0, -0.4d0, 1.1d0, 0.65d0, -0.9d0]
  dx = 0
  call autodiff(c_funloc(chain_energy), enzyme_dup, x, dx, enzyme_const, n)
  worst = 0
  do k = 1, n
    xp = x; xp(k) = xp(k) + 1d-6
    xm = x; xm(k) = xm(k) - 1d-6
    fd = (chain_energy(xp, n) - chain_energy(xm, n)) / 2d-6
    worst = max(worst, abs(fd - dx(k)) / max(1d0, abs(fd)))
  end do
  dir = [1d0, -0.5d0, 0.25d0, 2d0, -1d0]
  fwd = fwddiff(c_funloc(chain_energy), enzyme_dup, x, dir, enzyme_const, n)
  print *, 'chain: worst', worst, 'forward', fwd, 'reverse', dot_product(dx, dir)
  worst = max(worst, abs(fwd - dot_product(dx, dir)))
  if (minval(abs(dx)) < 1d-3) error stop 'a zero gradient proves nothing'

  y = real(x, c_float)
  dy = 0
  call autodiff4(c_funloc(coarse_energy), enzyme_dup, y, dy, enzyme_const, n)
  worst4 = 0
  do k = 1, n
    yp = y; yp(k) = yp(k) + 1e-2
    ym = y; ym(k) = ym(k) - 1e-2
    worst4 = max(worst4, abs((coarse_energy(yp, n) - coarse_energy(ym, n)) / 2e-2 - dy(k)) &
                         / max(1.0, abs(dy(k))))
  end do
  diry = real(dir, c_float)
  fwd4 = fwddiff4(c_funloc(coarse_energy), enzyme_dup, y, diry, enzyme_const, n)
  print *, 'coarse: worst', worst4, 'forward', fwd4, 'reverse', dot_product(dy, diry)
  worst4 = max(worst4, abs(fwd4 - dot_product(dy, diry)) / abs(fwd4))
  if (worst < 1d-6 .and. worst4 < 1e-2) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
