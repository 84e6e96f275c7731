/* Tiny inline assembly: cpuid-free helpers, memory clobbers, and asm goto. */
#include <stdint.h>

static inline uint64_t read_tsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

uint64_t elapsed(void) {
    uint64_t t0 = read_tsc();
    __asm__ volatile("" ::: "memory");
    return read_tsc() - t0;
}

int add_asm(int a, int b) {
    int r;
    __asm__("leal (%1,%2), %0" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

uint32_t bsr(uint32_t x) {
    uint32_t r;
    __asm__("bsrl %1, %0" : "=r"(r) : "rm"(x) : "cc");
    return r;
}

void compiler_barrier_sum(const int *v, int n, int *out) {
    int s = 0;
    for (int i = 0; i < n; ++i) {
        s += v[i];
        __asm__ volatile("" : "+r"(s));
    }
    *out = s;
}

int is_positive_asm_goto(long x) {
    __asm__ goto("testq %0, %0\n\tjg %l[pos]" : : "r"(x) : "cc" : pos);
    return 0;
pos:
    return 1;
}
