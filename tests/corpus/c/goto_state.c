/* goto-based control flow and computed goto (labels as values). */
#include <stddef.h>

int parse_number(const char *s, long *out) {
    long v = 0;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (*s < '0' || *s > '9')
        goto fail;
digits:
    v = v * 10 + (*s - '0');
    s++;
    if (*s >= '0' && *s <= '9')
        goto digits;
    if (*s != '\0')
        goto fail;
    *out = neg ? -v : v;
    return 1;
fail:
    *out = 0;
    return 0;
}

long interp_threaded(const unsigned char *prog, size_t n, long acc) {
    static void *dispatch[] = {&&op_inc, &&op_dec, &&op_dbl, &&op_halt};
    size_t pc = 0;
#define NEXT()                            \
    do {                                  \
        if (pc >= n)                      \
            return acc;                   \
        goto *dispatch[prog[pc++] & 3];   \
    } while (0)
    NEXT();
op_inc:
    acc++;
    NEXT();
op_dec:
    acc--;
    NEXT();
op_dbl:
    acc *= 2;
    NEXT();
op_halt:
    return acc;
#undef NEXT
}

int find_pair(const int *a, int n, int target, int *pi, int *pj) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (a[i] + a[j] == target) {
                *pi = i;
                *pj = j;
                goto found;
            }
    return 0;
found:
    return 1;
}
