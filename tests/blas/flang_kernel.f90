! A kernel written in Fortran calling BLAS with character arguments: flang passes their
! hidden lengths after the listed arguments (checked by flang_rules.c through bind(C)).
subroutine fkernel(a, b, c, s) bind(C, name="fkernel")
  implicit none
  double precision, intent(inout) :: a(*), b(*), c(*), s(*)
  external dgemm, dsyrk, dtrmv
  ! C(3x4) = s1 A^T(3x5) B(5x4) + s2 C
  call dgemm('T', 'N', 3, 4, 5, s(1), a, 6, b, 6, s(2), c, 4)
  ! upper triangle of C(20..) (3x3, ld 3) += A(1:3,1:2) A(1:3,1:2)^T
  call dsyrk('U', 'N', 3, 2, 1.0d0, a, 6, 1.0d0, c(20), 3)
  ! b(60..) := lower(A)^T b(60..), unit diagonal
  call dtrmv('L', 'T', 'U', 4, a, 6, b(60), 1)
end subroutine

! The inverse of a well-conditioned 4x4 matrix in a (ld 6) as Fortran codes write it:
! getrf, a workspace query, getri with the workspace it asked for (at most 64).
subroutine finverse(a, b, c, s) bind(C, name="finverse")
  implicit none
  double precision, intent(inout) :: a(*), b(*), c(*), s(*)
  external dgetrf, dgetri
  integer :: ipiv(4), info, lwork, i
  double precision :: wkopt(1), work(64)
  do i = 1, 4
    a(i + 6 * (i - 1)) = a(i + 6 * (i - 1)) + 2.0d0
  end do
  call dgetrf(4, 4, a, 6, ipiv, info)
  call dgetri(4, a, 6, ipiv, wkopt, -1, info)
  lwork = min(int(wkopt(1)), 64)
  call dgetri(4, a, 6, ipiv, work, lwork, info)
  b(1) = b(1) * a(1) + c(1) * s(1)
end subroutine
