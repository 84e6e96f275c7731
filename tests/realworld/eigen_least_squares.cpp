// FLAGS: -I/usr/include/eigen3
// Eigen with fixed-size and dynamic matrices: a rigid-body transform of a point cloud
// (Matrix3d, Vector3d) followed by a ridge-regularized least-squares fit solved with a
// Cholesky (LDLT) factorization of a dynamic MatrixXd, and a VectorXd-valued residual.
// The gradient of the misfit with respect to the rotation angle, the translation and the
// regularization weight is checked against central differences and forward mode.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>

double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
extern int enzyme_const, enzyme_dup;

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

static Matrix3d rotation_z(double angle) {
  Matrix3d r;
  r << std::cos(angle), -std::sin(angle), 0.0,
       std::sin(angle),  std::cos(angle), 0.0,
       0.0,              0.0,             1.0;
  return r;
}

typedef Eigen::Matrix<double, Eigen::Dynamic, 3> PointCloud;

// params = {angle, tx, ty, tz, lambda}; one point per row, one target per point
double fit_misfit(const double* params, const PointCloud& points, const VectorXd& targets) {
  const Eigen::Index n = points.rows();
  const Matrix3d R = rotation_z(params[0]);
  const Vector3d t(params[1], params[2], params[3]);
  const double lambda = params[4];
  // design matrix from the transformed points: [1, x, y, z, x*y]
  MatrixXd A(n, 5);
  for (Eigen::Index i = 0; i < n; ++i) {
    Vector3d q = R * points.row(i).transpose() + t;
    A(i, 0) = 1.0;
    A(i, 1) = q.x();
    A(i, 2) = q.y();
    A(i, 3) = q.z();
    A(i, 4) = q.x() * q.y();
  }
  VectorXd b = targets;  // centred targets
  b.array() -= b.mean();
  MatrixXd normal = A.transpose() * A + lambda * MatrixXd::Identity(5, 5);
  VectorXd coef = normal.ldlt().solve(A.transpose() * b);
  VectorXd residual = A * coef - b;
  return residual.squaredNorm() + lambda * coef.squaredNorm();
}

static void check(const char* what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) {
    std::fprintf(stderr, "%s: got %.15g, want %.15g\n", what, got, want);
    std::abort();
  }
}

int main() {
  const int n = 12;
  PointCloud points(n, 3);
  VectorXd targets(n);
  for (int i = 0; i < n; ++i) {
    points.row(i) << std::cos(0.7 * i), std::sin(1.3 * i), 0.1 * i - 0.5;
    targets(i) = 1.0 + 0.5 * std::sin(0.9 * i) + 0.05 * i * i;
  }
  double params[5] = {0.3, 0.1, -0.2, 0.05, 0.01};
  double grad[5] = {0, 0, 0, 0, 0};
  __enzyme_autodiff((void*)fit_misfit, enzyme_dup, params, grad, enzyme_const, &points,
                    enzyme_const, &targets);
  for (int k = 0; k < 5; ++k) {
    double h = 1e-6, p[5];
    for (int j = 0; j < 5; ++j) p[j] = params[j];
    p[k] = params[k] + h;
    double fp = fit_misfit(p, points, targets);
    p[k] = params[k] - h;
    double fm = fit_misfit(p, points, targets);
    check("reverse vs central difference", grad[k], (fp - fm) / (2 * h), 1e-5);
    double dp[5] = {0, 0, 0, 0, 0};
    dp[k] = 1.0;
    double tangent = __enzyme_fwddiff((void*)fit_misfit, enzyme_dup, params, dp, enzyme_const,
                                      &points, enzyme_const, &targets);
    check("forward vs reverse", tangent, grad[k], 1e-9);
  }
  std::printf("misfit gradient: %.10g %.10g %.10g %.10g %.10g\nOK\n", grad[0], grad[1],
              grad[2], grad[3], grad[4]);
  return 0;
}
