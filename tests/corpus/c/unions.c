/* Unions: type punning, tagged variants, and a small value interpreter. */
#include <stdint.h>
#include <string.h>

typedef union {
    float f;
    uint32_t u;
    uint8_t bytes[4];
} fbits;

uint32_t float_to_bits(float f) {
    fbits b;
    b.f = f;
    return b.u;
}

float fast_inv_sqrt(float x) {
    fbits b = {.f = x};
    b.u = 0x5f3759dfu - (b.u >> 1);
    float y = b.f;
    return y * (1.5f - 0.5f * x * y * y);
}

enum kind { K_INT, K_DBL, K_STR };

typedef struct {
    enum kind tag;
    union {
        long i;
        double d;
        const char *s;
    } as;
} value;

double value_as_double(const value *v) {
    switch (v->tag) {
    case K_INT:
        return (double)v->as.i;
    case K_DBL:
        return v->as.d;
    case K_STR:
        return (double)strlen(v->as.s);
    }
    return 0.0;
}

double sum_values(const value *vs, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += value_as_double(&vs[i]);
    return s;
}

int little_endian(void) {
    union {
        uint16_t w;
        uint8_t b[2];
    } t = {.w = 1};
    return t.b[0] == 1;
}

uint64_t double_exponent(double d) {
    union {
        double d;
        uint64_t u;
    } x = {d};
    return (x.u >> 52) & 0x7ff;
}
