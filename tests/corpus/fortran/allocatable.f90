! Allocatable arrays: allocation, growth by reallocation, move_alloc, automatic deallocation.
module dynamic_arrays
  implicit none
contains
  subroutine push_back(v, n, x)
    real(8), allocatable, intent(inout) :: v(:)
    integer, intent(inout) :: n
    real(8), intent(in) :: x
    real(8), allocatable :: tmp(:)
    if (.not. allocated(v)) then
      allocate(v(4))
    else if (n == size(v)) then
      allocate(tmp(2 * size(v)))
      tmp(1:n) = v(1:n)
      call move_alloc(tmp, v)
    end if
    n = n + 1
    v(n) = x
  end subroutine push_back

  function cumulative(x) result(c)
    real(8), intent(in) :: x(:)
    real(8), allocatable :: c(:)
    integer :: i
    allocate(c(size(x)))
    if (size(x) == 0) return
    c(1) = x(1)
    do i = 2, size(x)
      c(i) = c(i - 1) + x(i)
    end do
  end function cumulative

  function outer(x, y) result(m)
    real(8), intent(in) :: x(:), y(:)
    real(8), allocatable :: m(:, :)
    integer :: i, j
    allocate(m(size(x), size(y)))
    do j = 1, size(y)
      do i = 1, size(x)
        m(i, j) = x(i) * y(j)
      end do
    end do
  end function outer
end module dynamic_arrays

program alloc_demo
  use dynamic_arrays
  implicit none
  real(8), allocatable :: v(:), c(:), m(:, :)
  integer :: n, k
  n = 0
  do k = 1, 10
    call push_back(v, n, 0.5d0 * k)
  end do
  c = cumulative(v(1:n))
  m = outer(c(1:3), v(1:2))
  print *, n, size(v), c(n), sum(m)
  deallocate(v)
end program alloc_demo
