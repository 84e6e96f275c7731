! The differentiated function, in Fortran: a sum of potentials evaluated in C++.
function field_energy(x, n) result(e) bind(c, name="field_energy")
  use iso_c_binding, only: c_double, c_int
  implicit none
  integer(c_int), intent(in) :: n
  real(c_double), intent(in) :: x(n)
  real(c_double) :: e
  interface
    function cxx_potential(r) result(v) bind(c, name="cxx_potential")
      import :: c_double
      real(c_double), value :: r
      real(c_double) :: v
    end function
  end interface
  integer :: i
  e = 0
  do i = 1, n
    e = e + cxx_potential(x(i)) * i
  end do
end function
