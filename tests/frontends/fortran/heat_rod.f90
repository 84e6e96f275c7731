! A 1-D heat-conduction model written the way Fortran simulation codes are: grid constants
! as module parameters, a material table (module allocatables) filled by an init routine,
! and the rod a derived type with allocatable components and type-bound procedures
! (setup allocates them, step updates them in place, energy reduces them). loss() runs
! explicit time steps from initial temperatures and a diffusivity; it is differentiated
! through bind(C) interfaces to __enzyme_autodiff and __enzyme_fwddiff, and the program
! checks the gradient against central differences and forward against reverse mode.
module heat_rod
  use iso_c_binding
  implicit none
  private
  public :: loss, init_material

  integer, parameter :: dp = c_double
  integer, parameter :: nsteps = 20
  real(dp), parameter :: dt = 1d-3, length = 1d0
  real(dp), allocatable :: conductivity(:), source(:)
  integer :: ncells = 0

  type :: rod
    real(dp), allocatable :: temp(:), flux(:)
    real(dp) :: dx = 0
  contains
    procedure :: setup => rod_setup
    procedure :: step => rod_step
    procedure :: energy => rod_energy
  end type

contains

  subroutine init_material(n)
    integer, intent(in) :: n
    integer :: i
    ncells = n
    allocate(conductivity(n + 1), source(n))
    do i = 1, n + 1
      conductivity(i) = 1d0 + 0.5d0 * sin(3d0 * i / n)
    end do
    do i = 1, n
      source(i) = exp(-((i - 0.5d0 * n) / n)**2)
    end do
  end subroutine

  subroutine rod_setup(self, t0)
    class(rod), intent(inout) :: self
    real(dp), intent(in) :: t0(:)
    allocate(self%temp(ncells), self%flux(ncells + 1))
    self%temp = t0
    self%flux = 0
    self%dx = length / ncells
  end subroutine

  subroutine rod_step(self, alpha)
    class(rod), intent(inout) :: self
    real(dp), intent(in) :: alpha
    integer :: i
    self%flux(1) = 0
    self%flux(ncells + 1) = 0
    do i = 2, ncells
      self%flux(i) = -alpha * conductivity(i) * (self%temp(i) - self%temp(i - 1)) / self%dx
    end do
    do i = 1, ncells
      self%temp(i) = self%temp(i) - dt * (self%flux(i + 1) - self%flux(i)) / self%dx &
                     + dt * source(i) * self%temp(i) / (1d0 + self%temp(i)**2)
    end do
  end subroutine

  function rod_energy(self) result(e)
    class(rod), intent(in) :: self
    real(dp) :: e
    e = sum(self%temp**2) * self%dx
  end function

  function loss(x, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: l
    type(rod) :: r
    integer :: s
    call r%setup(x(1:n - 1))
    do s = 1, nsteps
      call r%step(x(n))
    end do
    l = r%energy()
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
  use heat_rod
  use enzyme
  implicit none
  integer, parameter :: n = 9
  real(c_double) :: x(n), grad(n), xp(n), xm(n), dir(n), fd, worst, fwd, h
  integer :: k

  call init_material(n - 1)
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
