! Derived types: components, arrays of types, type-bound procedures, allocatable components.
module geometry
  implicit none
  type :: point
    real(8) :: x = 0, y = 0
  end type point

  type :: polygon
    type(point), allocatable :: verts(:)
    character(len=16) :: label = 'poly'
  contains
    procedure :: area => polygon_area
    procedure :: perimeter => polygon_perimeter
  end type polygon

  type :: particle
    type(point) :: pos, vel
    real(8) :: mass
    integer :: id
  end type particle
contains
  function dist(a, b) result(d)
    type(point), intent(in) :: a, b
    real(8) :: d
    d = hypot(a%x - b%x, a%y - b%y)
  end function dist

  function polygon_area(self) result(a)
    class(polygon), intent(in) :: self
    real(8) :: a
    integer :: i, j, n
    n = size(self%verts)
    a = 0
    do i = 1, n
      j = mod(i, n) + 1
      a = a + self%verts(i)%x * self%verts(j)%y - self%verts(j)%x * self%verts(i)%y
    end do
    a = abs(a) / 2
  end function polygon_area

  function polygon_perimeter(self) result(p)
    class(polygon), intent(in) :: self
    real(8) :: p
    integer :: i, n
    n = size(self%verts)
    p = 0
    do i = 1, n
      p = p + dist(self%verts(i), self%verts(mod(i, n) + 1))
    end do
  end function polygon_perimeter

  subroutine advance(ps, dt)
    type(particle), intent(inout) :: ps(:)
    real(8), intent(in) :: dt
    integer :: i
    do i = 1, size(ps)
      ps(i)%pos%x = ps(i)%pos%x + dt * ps(i)%vel%x
      ps(i)%pos%y = ps(i)%pos%y + dt * ps(i)%vel%y
    end do
  end subroutine advance

  function center_of_mass(ps) result(c)
    type(particle), intent(in) :: ps(:)
    type(point) :: c
    real(8) :: m
    m = sum(ps%mass)
    c%x = sum(ps%mass * ps%pos%x) / m
    c%y = sum(ps%mass * ps%pos%y) / m
  end function center_of_mass
end module geometry
