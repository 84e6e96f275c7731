// A small matrix class with operator overloading, std::vector storage and iterators.
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <vector>

class Matrix {
    std::size_t r_, c_;
    std::vector<double> d_;
public:
    Matrix(std::size_t r, std::size_t c, double v = 0.0) : r_(r), c_(c), d_(r * c, v) {}
    Matrix(std::size_t r, std::size_t c, std::initializer_list<double> vals) : r_(r), c_(c), d_(vals) {
        if (d_.size() != r * c)
            throw std::length_error("wrong number of values");
    }
    double &operator()(std::size_t i, std::size_t j) { return d_[i * c_ + j]; }
    double operator()(std::size_t i, std::size_t j) const { return d_[i * c_ + j]; }
    std::size_t rows() const { return r_; }
    std::size_t cols() const { return c_; }

    Matrix operator*(const Matrix &o) const {
        if (c_ != o.r_)
            throw std::invalid_argument("shape mismatch");
        Matrix out(r_, o.c_);
        for (std::size_t i = 0; i < r_; ++i)
            for (std::size_t k = 0; k < c_; ++k) {
                double a = (*this)(i, k);
                for (std::size_t j = 0; j < o.c_; ++j)
                    out(i, j) += a * o(k, j);
            }
        return out;
    }
    Matrix transpose() const {
        Matrix t(c_, r_);
        for (std::size_t i = 0; i < r_; ++i)
            for (std::size_t j = 0; j < c_; ++j)
                t(j, i) = (*this)(i, j);
        return t;
    }
    double frobenius() const {
        double s = 0;
        for (double x : d_)
            s += x * x;
        return std::sqrt(s);
    }
};

double gram_norm(const Matrix &a) { return (a.transpose() * a).frobenius(); }

double power_iteration(const Matrix &a, int iters) {
    Matrix v(a.cols(), 1, 1.0);
    double lambda = 0;
    for (int k = 0; k < iters; ++k) {
        Matrix w = a * v;
        lambda = w.frobenius();
        for (std::size_t i = 0; i < w.rows(); ++i)
            v(i, 0) = w(i, 0) / lambda;
    }
    return lambda;
}

double demo() {
    Matrix a(2, 2, {2.0, 1.0, 1.0, 3.0});
    return power_iteration(a, 50) + gram_norm(a);
}
