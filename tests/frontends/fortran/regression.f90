! A one-hidden-layer regression model in a module, written the way Fortran numerical
! code is: the training data and the weight decay are module variables, the parameters
! come packed in one vector and are unpacked with reshape into allocatable arrays, the
! hidden layer is matmul + tanh over allocatable work arrays that reallocate on
! assignment, and a derived type holds the output layer. loss() is differentiated through
! bind(C) interfaces to __enzyme_autodiff and __enzyme_fwddiff; the program checks the
! gradient against central differences, forward against reverse mode, and prints OK.
module regression
  use iso_c_binding
  implicit none
  private
  public :: loss, load_data

  type :: output_layer
    real(c_double), allocatable :: w(:)
    real(c_double) :: bias = 0
  end type

  real(c_double), allocatable :: inputs(:, :), targets(:)
  real(c_double) :: weight_decay = 1d-2

contains

  subroutine load_data(nin, nsamples)
    integer, intent(in) :: nin, nsamples
    integer :: i, s
    allocate(inputs(nin, nsamples), targets(nsamples))
    do s = 1, nsamples
      do i = 1, nin
        inputs(i, s) = sin(0.7d0 * i + 1.3d0 * s)
      end do
      targets(s) = cos(0.5d0 * s)
    end do
  end subroutine

  function loss(theta, n) result(l) bind(c, name="loss")
    integer(c_int), value :: n
    real(c_double), intent(in) :: theta(n)
    real(c_double) :: l
    real(c_double), allocatable :: w1(:, :), b1(:), z(:), h(:)
    type(output_layer) :: out
    integer :: nin, nh, s, ierr

    nin = size(inputs, 1)
    nh = (n - 1) / (nin + 2)
    allocate(w1(nh, nin), stat=ierr)
    if (ierr /= 0) error stop 'cannot allocate the hidden layer'
    w1 = reshape(theta(1:nh*nin), [nh, nin])
    b1 = theta(nh*nin + 1:nh*nin + nh)
    out%w = theta(nh*nin + nh + 1:nh*nin + 2*nh)
    out%bias = theta(n)

    l = 0
    do s = 1, size(targets)
      z = matmul(w1, inputs(:, s)) + b1
      h = tanh(z)
      l = l + 0.5d0 * (dot_product(out%w, h) + out%bias - targets(s))**2
    end do
    l = l / size(targets) + weight_decay * (sum(w1**2) + sum(out%w**2)) &
        + 1d-2 * maxval(abs(matmul(transpose(w1), out%w)))
    deallocate(w1, stat=ierr)
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
  use regression
  use enzyme
  implicit none
  integer, parameter :: nin = 3, nh = 4, n = nh * nin + 2 * nh + 1
  real(c_double) :: theta(n), grad(n), tp(n), tm(n), dir(n), fd, worst, fwd
  integer :: k

  call load_data(nin, 6)
  do k = 1, n
    theta(k) = 0.3d0 * cos(1.7d0 * k)
  end do
  grad = 0
  call enzyme_autodiff(c_funloc(loss), enzyme_dup, theta, grad, enzyme_const, n)
  worst = 0
  do k = 1, n
    tp = theta; tp(k) = tp(k) + 1d-6
    tm = theta; tm(k) = tm(k) - 1d-6
    fd = (loss(tp, n) - loss(tm, n)) / 2d-6
    worst = max(worst, abs(fd - grad(k)) / max(1d0, abs(fd)))
  end do
  do k = 1, n
    dir(k) = sin(0.9d0 * k)
  end do
  fwd = enzyme_fwddiff(c_funloc(loss), enzyme_dup, theta, dir, enzyme_const, n)
  print *, 'worst', worst, 'forward', fwd, 'reverse', dot_product(grad, dir)
  worst = max(worst, abs(fwd - dot_product(grad, dir)))
  if (minval(abs(grad)) < 1d-6) error stop 'a zero gradient proves nothing'
  if (worst < 1d-6) then
    print '(A)', 'OK'
  else
    error stop 'MISMATCH'
  end if
end program
