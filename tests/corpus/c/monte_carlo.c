/* xorshift random numbers, Monte Carlo estimates and a Box-Muller transform. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t s[2];
} rng;

static uint64_t next_u64(rng *r) {
    uint64_t s1 = r->s[0];
    const uint64_t s0 = r->s[1];
    r->s[0] = s0;
    s1 ^= s1 << 23;
    r->s[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return r->s[1] + s0;
}

static double uniform(rng *r) { return (next_u64(r) >> 11) * 0x1.0p-53; }

double estimate_pi(rng *r, long samples) {
    long inside = 0;
    for (long i = 0; i < samples; ++i) {
        double x = uniform(r), y = uniform(r);
        inside += (x * x + y * y) <= 1.0;
    }
    return 4.0 * (double)inside / (double)samples;
}

void box_muller(rng *r, double *out, int n) {
    for (int i = 0; i + 1 < n; i += 2) {
        double u1 = uniform(r), u2 = uniform(r);
        double mag = sqrt(-2.0 * log(u1 + 1e-300));
        out[i] = mag * cos(2 * M_PI * u2);
        out[i + 1] = mag * sin(2 * M_PI * u2);
    }
}

double mean_var(const double *x, int n, double *var) {
    double m = 0, m2 = 0;
    for (int i = 0; i < n; ++i) {
        double d = x[i] - m;
        m += d / (i + 1);
        m2 += d * (x[i] - m);
    }
    *var = n > 1 ? m2 / (n - 1) : 0;
    return m;
}

int main(void) {
    rng r = {{0x9E3779B97F4A7C15ull, 0xD1B54A32D192ED03ull}};
    double g[1000], v;
    box_muller(&r, g, 1000);
    double m = mean_var(g, 1000, &v);
    printf("pi~%.4f mean=%.3f var=%.3f\n", estimate_pi(&r, 100000), m, v);
    return 0;
}
