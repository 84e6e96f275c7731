! A Fortran module function with an OpenMP parallel do and a sum reduction; the C main
! (energy_parallel_do_main.c) differentiates it and checks the closed-form gradient.
module heat
contains
  function energy(x, n) result(e) bind(c, name="energy")
    use iso_c_binding
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    integer :: i
    e = 0.0d0
    !$omp parallel do reduction(+:e)
    do i = 1, n
      e = e + sin(x(i)) * x(i) ** 2
    end do
    !$omp end parallel do
  end function
end module
