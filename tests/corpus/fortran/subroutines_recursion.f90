! Subroutines and functions: recursion, intent(inout), character arguments, select case.
module algorithms
  implicit none
contains
  recursive function factorial(n) result(f)
    integer, intent(in) :: n
    integer(8) :: f
    if (n <= 1) then
      f = 1
    else
      f = n * factorial(n - 1)
    end if
  end function factorial

  recursive subroutine quicksort(a, lo, hi)
    real(8), intent(inout) :: a(:)
    integer, intent(in) :: lo, hi
    integer :: i, j
    real(8) :: pivot, t
    if (lo >= hi) return
    pivot = a((lo + hi) / 2)
    i = lo
    j = hi
    do while (i <= j)
      do while (a(i) < pivot)
        i = i + 1
      end do
      do while (a(j) > pivot)
        j = j - 1
      end do
      if (i <= j) then
        t = a(i); a(i) = a(j); a(j) = t
        i = i + 1
        j = j - 1
      end if
    end do
    call quicksort(a, lo, j)
    call quicksort(a, i, hi)
  end subroutine quicksort

  integer function grade_points(grade)
    character(len=*), intent(in) :: grade
    select case (grade)
    case ('A')
      grade_points = 4
    case ('B')
      grade_points = 3
    case ('C')
      grade_points = 2
    case ('D', 'E')
      grade_points = 1
    case default
      grade_points = 0
    end select
  end function grade_points

  integer function bucket(x)
    integer, intent(in) :: x
    select case (x)
    case (:-1)
      bucket = -1
    case (0)
      bucket = 0
    case (1:9)
      bucket = 1
    case (10:99)
      bucket = 2
    case default
      bucket = 3
    end select
  end function bucket

  subroutine swap_strings(a, b)
    character(len=*), intent(inout) :: a, b
    character(len=len(a)) :: t
    t = a
    a = b
    b = t
  end subroutine swap_strings
end module algorithms

program recursion_demo
  use algorithms
  implicit none
  real(8) :: v(6) = [3.0d0, 1.0d0, 4.0d0, 1.5d0, 9.0d0, 2.6d0]
  character(len=5) :: s1 = 'hello', s2 = 'world'
  call quicksort(v, 1, size(v))
  call swap_strings(s1, s2)
  print *, factorial(15), v(1), v(6), grade_points('B'), bucket(42), s1
end program recursion_demo
