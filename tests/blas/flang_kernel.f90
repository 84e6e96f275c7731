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
