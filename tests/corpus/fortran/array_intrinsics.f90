! Whole-array operations and intrinsics: matmul, sum, dot_product, maxval, transpose.
module array_ops
  implicit none
contains
  function frob_norm(a) result(r)
    real(8), intent(in) :: a(:, :)
    real(8) :: r
    r = sqrt(sum(a * a))
  end function frob_norm

  subroutine gram(a, g)
    real(8), intent(in) :: a(:, :)
    real(8), intent(out) :: g(size(a, 2), size(a, 2))
    g = matmul(transpose(a), a)
  end subroutine gram

  function cosine_similarity(x, y) result(c)
    real(8), intent(in) :: x(:), y(:)
    real(8) :: c
    c = dot_product(x, y) / (norm2(x) * norm2(y))
  end function cosine_similarity

  subroutine column_stats(a, mx, mn, avg)
    real(8), intent(in) :: a(:, :)
    real(8), intent(out) :: mx(:), mn(:), avg(:)
    mx = maxval(a, dim=1)
    mn = minval(a, dim=1)
    avg = sum(a, dim=1) / size(a, 1)
  end subroutine column_stats

  function count_above(x, t) result(n)
    real(4), intent(in) :: x(:)
    real(4), intent(in) :: t
    integer :: n
    n = count(x > t)
  end function count_above
end module array_ops

program array_demo
  use array_ops
  implicit none
  real(8) :: a(3, 2), g(2, 2), mx(2), mn(2), avg(2)
  real(4) :: v(5)
  integer :: i
  a = reshape([(real(i, 8), i = 1, 6)], [3, 2])
  call gram(a, g)
  call column_stats(a, mx, mn, avg)
  v = [1.0, -2.0, 3.5, 0.0, 7.25]
  print *, frob_norm(a), g(1, 2), mx, avg, count_above(v, 0.5), &
       cosine_similarity(a(:, 1), a(:, 2)), maxloc(v)
end program array_demo
