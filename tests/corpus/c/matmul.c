/* Dense matrix kernels: naive and blocked multiplication, transpose, trace. */
#define BS 8

void matmul_naive(int n, int m, int k, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            double s = 0.0;
            for (int p = 0; p < k; ++p)
                s += a[i * k + p] * b[p * m + j];
            c[i * m + j] = s;
        }
}

void matmul_blocked(int n, const double *restrict a, const double *restrict b,
                    double *restrict c) {
    for (int i = 0; i < n * n; ++i)
        c[i] = 0.0;
    for (int ii = 0; ii < n; ii += BS)
        for (int kk = 0; kk < n; kk += BS)
            for (int jj = 0; jj < n; jj += BS)
                for (int i = ii; i < ii + BS && i < n; ++i)
                    for (int k = kk; k < kk + BS && k < n; ++k) {
                        double aik = a[i * n + k];
                        for (int j = jj; j < jj + BS && j < n; ++j)
                            c[i * n + j] += aik * b[k * n + j];
                    }
}

void transpose(int rows, int cols, const float *src, float *dst) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            dst[c * rows + r] = src[r * cols + c];
}

double trace(int n, double m[n][n]) {
    double t = 0;
    for (int i = 0; i < n; ++i)
        t += m[i][i];
    return t;
}

void matvec3(const double m[3][3], const double v[3], double out[3]) {
    for (int i = 0; i < 3; ++i)
        out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}
