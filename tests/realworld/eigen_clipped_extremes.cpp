// FLAGS: -I/usr/include/eigen3
// Eigen's coefficient-wise extremes in a robust fit, the way Eigen users write them:
// residuals clipped with cwiseMin/cwiseMax (Huber-like), the worst residual with
// lpNorm<Infinity>() and maxCoeff(), the smallest weight with minCoeff(), and the largest
// eigenvalue of a 3x3 scatter matrix from SelfAdjointEigenSolver. Under clang, Eigen's
// SSE pmax/pmin are inline assembly (maxpd/minpd), which irgrad reads as compare-and-
// select. Reverse and forward mode against central differences.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup;

using Eigen::Map;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using Eigen::VectorXd;

double robust_objective(const double* theta, const double* t, const double* y, int n) {
  Map<const VectorXd> tv(t, n), yv(y, n);
  VectorXd r = (theta[0] + theta[1] * tv.array() + theta[2] * tv.array().square()).matrix() - yv;
  VectorXd clipped = r.cwiseMin(0.8).cwiseMax(-0.8);
  double loss = clipped.squaredNorm();
  loss += 0.1 * r.lpNorm<Eigen::Infinity>() + 0.05 * r.maxCoeff();
  Map<const Vector3d> w(theta);
  loss += 0.2 * w.cwiseAbs().minCoeff();
  Matrix3d scatter = Matrix3d::Zero();
  for (int i = 0; i < n; ++i) {
    Vector3d phi(1.0, theta[1] * t[i], theta[2] * t[i] * t[i]);
    scatter += phi * phi.transpose();
  }
  Eigen::SelfAdjointEigenSolver<Matrix3d> eig(scatter);
  return loss + 1e-3 * eig.eigenvalues().maxCoeff();
}

int main() {
  const int n = 24;
  double t[n], y[n];
  for (int i = 0; i < n; ++i) {
    t[i] = -1.0 + 2.0 * i / (n - 1);
    y[i] = 0.4 - 0.7 * t[i] + 1.1 * t[i] * t[i] + 0.3 * std::sin(7.0 * i) + (i == 5 ? 2.5 : 0.0);
  }
  double theta[3] = {0.3, -0.5, 0.9}, dtheta[3] = {0, 0, 0};
  __enzyme_autodiff((void*)robust_objective, enzyme_dup, theta, dtheta, enzyme_const, t,
                    enzyme_const, y, enzyme_const, n);
  double fd[3];
  for (int k = 0; k < 3; ++k) {
    const double h = 1e-6, keep = theta[k];
    theta[k] = keep + h;
    double up = robust_objective(theta, t, y, n);
    theta[k] = keep - h;
    double down = robust_objective(theta, t, y, n);
    theta[k] = keep;
    fd[k] = (up - down) / (2 * h);
    if (std::fabs(dtheta[k] - fd[k]) > 1e-5 * (1 + std::fabs(fd[k]))) {
      std::printf("reverse d/dtheta[%d]: %.12g, finite differences %.12g\n", k, dtheta[k], fd[k]);
      return 1;
    }
  }
  double dir[3] = {0.5, 1.0, -0.25};
  double tan = __enzyme_fwddiff((void*)robust_objective, enzyme_dup, theta, dir, enzyme_const,
                                t, enzyme_const, y, enzyme_const, n);
  double want = fd[0] * dir[0] + fd[1] * dir[1] + fd[2] * dir[2];
  if (std::fabs(tan - want) > 1e-5 * (1 + std::fabs(want))) {
    std::printf("forward: %.12g, finite differences %.12g\n", tan, want);
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
