/* Clang/GCC vector extensions and explicit SIMD-style code. */
typedef float v4f __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef int v8i __attribute__((vector_size(32)));

v4f saxpy4(float a, v4f x, v4f y) { return (v4f){a, a, a, a} * x + y; }

float hsum4(v4f v) { return v[0] + v[1] + v[2] + v[3]; }

float dot_v4(const float *x, const float *y, int n) {
    v4f acc = {0, 0, 0, 0};
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f a, b;
        __builtin_memcpy(&a, x + i, sizeof a);
        __builtin_memcpy(&b, y + i, sizeof b);
        acc += a * b;
    }
    float s = hsum4(acc);
    for (; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

v2d cmul(v2d a, v2d b) {
    return (v2d){a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]};
}

v8i select_max(v8i a, v8i b) {
    v8i m = a > b;
    return (a & m) | (b & ~m);
}

v4f shuffle_rev(v4f v) { return __builtin_shufflevector(v, v, 3, 2, 1, 0); }

v8i add_sat_like(v8i a, v8i b) {
    v8i s = a + b;
    v8i lim = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
    return __builtin_elementwise_min(s, lim);
}

int count_positive(const int *v, int n) {
    v8i zero = {0};
    v8i cnt = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8i x;
        __builtin_memcpy(&x, v + i, sizeof x);
        cnt -= (x > zero);
    }
    int c = 0;
    for (int k = 0; k < 8; ++k)
        c += cnt[k];
    for (; i < n; ++i)
        c += v[i] > 0;
    return c;
}
