/* Fixed-point Q16.16 arithmetic, saturation and integer square root. */
#include <stdint.h>

typedef int32_t q16;
#define Q_ONE (1 << 16)

q16 q_from_double(double d) { return (q16)(d * Q_ONE + (d >= 0 ? 0.5 : -0.5)); }
double q_to_double(q16 q) { return (double)q / Q_ONE; }

q16 q_mul(q16 a, q16 b) { return (q16)(((int64_t)a * b) >> 16); }

q16 q_div(q16 a, q16 b) {
    if (b == 0)
        return a >= 0 ? INT32_MAX : INT32_MIN;
    return (q16)(((int64_t)a << 16) / b);
}

int32_t sat_add(int32_t a, int32_t b) {
    int64_t s = (int64_t)a + b;
    if (s > INT32_MAX) return INT32_MAX;
    if (s < INT32_MIN) return INT32_MIN;
    return (int32_t)s;
}

uint8_t sat_u8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

uint32_t isqrt(uint64_t n) {
    uint64_t x = n, y = (x + 1) / 2;
    if (n < 2)
        return (uint32_t)n;
    while (y < x) {
        x = y;
        y = (x + n / x) / 2;
    }
    return (uint32_t)x;
}

q16 q_sin(q16 x) {
    /* 5th-order Taylor on the reduced range */
    q16 x2 = q_mul(x, x);
    q16 t = x;
    q16 s = x;
    t = q_mul(t, x2) / 6;
    s -= t;
    t = q_mul(t, x2) / 20;
    s += t;
    return s;
}

void blend_rgb(const uint8_t *a, const uint8_t *b, uint8_t *out, int n, uint8_t alpha) {
    for (int i = 0; i < 3 * n; ++i)
        out[i] = (uint8_t)((a[i] * alpha + b[i] * (255 - alpha) + 127) / 255);
}

int gcd(int a, int b) {
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}
