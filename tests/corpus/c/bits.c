/* Bit manipulation: popcount, leading zeros, rotations, byte swaps, bit reversal. */
#include <stdint.h>

int popcount_loop(uint64_t x) {
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}

int popcount_builtin(uint64_t x) { return __builtin_popcountll(x); }
int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
int ctz64(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }

uint32_t rotl32(uint32_t x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }
uint64_t rotr64(uint64_t x, unsigned r) { return (x >> (r & 63)) | (x << ((64 - r) & 63)); }

uint32_t bswap32_manual(uint32_t x) {
    return ((x & 0xffu) << 24) | ((x & 0xff00u) << 8) | ((x >> 8) & 0xff00u) | (x >> 24);
}

uint64_t bswap64(uint64_t x) { return __builtin_bswap64(x); }

uint32_t reverse_bits(uint32_t v) {
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

uint64_t next_pow2(uint64_t x) {
    if (x <= 1) return 1;
    return 1ull << (64 - __builtin_clzll(x - 1));
}

uint16_t gray_encode(uint16_t n) { return n ^ (n >> 1); }

uint16_t gray_decode(uint16_t g) {
    for (uint16_t s = 1; s < 16; s <<= 1)
        g ^= g >> s;
    return g;
}

int64_t sign_extend(uint64_t v, unsigned bits) {
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

unsigned __int128 mul64x64(uint64_t a, uint64_t b) { return (unsigned __int128)a * b; }
