! Complex numbers, kinds, elemental and pure procedures, where/forall constructs.
module signal
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  elemental real(dp) function soft_threshold(x, t)
    real(dp), intent(in) :: x, t
    soft_threshold = sign(max(abs(x) - t, 0.0_dp), x)
  end function soft_threshold

  pure function dft(x) result(y)
    complex(dp), intent(in) :: x(:)
    complex(dp) :: y(size(x))
    integer :: k, n, m
    real(dp), parameter :: twopi = 6.283185307179586_dp
    m = size(x)
    do k = 0, m - 1
      y(k + 1) = (0.0_dp, 0.0_dp)
      do n = 0, m - 1
        y(k + 1) = y(k + 1) + x(n + 1) * exp(cmplx(0.0_dp, -twopi * k * n / m, dp))
      end do
    end do
  end function dft

  subroutine clip_negative(a)
    real(dp), intent(inout) :: a(:, :)
    where (a < 0.0_dp)
      a = 0.0_dp
    elsewhere
      a = sqrt(a)
    end where
  end subroutine clip_negative

  function power_spectrum(x) result(p)
    real(dp), intent(in) :: x(:)
    real(dp) :: p(size(x))
    complex(dp) :: c(size(x))
    c = dft(cmplx(x, 0.0_dp, dp))
    p = real(c * conjg(c), dp)
  end function power_spectrum

  subroutine hilbert(h)
    real(dp), intent(out) :: h(:, :)
    integer :: i, j
    forall (i = 1:size(h, 1), j = 1:size(h, 2)) h(i, j) = 1.0_dp / (i + j - 1)
  end subroutine hilbert
end module signal
