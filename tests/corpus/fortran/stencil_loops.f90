! Nested do loops: Jacobi relaxation, SAXPY with explicit loops, exit/cycle, do while.
subroutine jacobi2d(n, u, f, iters, resid)
  implicit none
  integer, intent(in) :: n, iters
  real(8), intent(inout) :: u(n, n)
  real(8), intent(in) :: f(n, n)
  real(8), intent(out) :: resid
  real(8) :: unew(n, n), h2
  integer :: i, j, it
  h2 = 1.0d0 / (n - 1)**2
  unew = u
  do it = 1, iters
    do j = 2, n - 1
      do i = 2, n - 1
        unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - h2 * f(i, j))
      end do
    end do
    resid = maxval(abs(unew - u))
    u = unew
    if (resid < 1d-10) exit
  end do
end subroutine jacobi2d

subroutine saxpy_loop(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(4), intent(in) :: a, x(n)
  real(4), intent(inout) :: y(n)
  integer :: i
  do i = 1, n
    if (x(i) == 0.0) cycle
    y(i) = y(i) + a * x(i)
  end do
end subroutine saxpy_loop

integer function collatz_steps(start)
  implicit none
  integer(8), intent(in) :: start
  integer(8) :: k
  k = start
  collatz_steps = 0
  do while (k /= 1)
    if (mod(k, 2_8) == 0) then
      k = k / 2
    else
      k = 3 * k + 1
    end if
    collatz_steps = collatz_steps + 1
  end do
end function collatz_steps

subroutine tridiag_solve(n, a, b, c, d, x)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n), b(n), c(n), d(n)
  real(8), intent(out) :: x(n)
  real(8) :: cp(n), dp(n), m
  integer :: i
  cp(1) = c(1) / b(1)
  dp(1) = d(1) / b(1)
  do i = 2, n
    m = b(i) - a(i) * cp(i - 1)
    cp(i) = c(i) / m
    dp(i) = (d(i) - a(i) * dp(i - 1)) / m
  end do
  x(n) = dp(n)
  do i = n - 1, 1, -1
    x(i) = dp(i) - cp(i) * x(i + 1)
  end do
end subroutine tridiag_solve
