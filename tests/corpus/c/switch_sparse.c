/* Sparse switch statements: lowered to compare trees or lookup chains. */
#include <stdint.h>

int http_class(int status) {
    switch (status) {
    case 100: return 1;
    case 200: return 2;
    case 201: return 2;
    case 204: return 2;
    case 301: return 3;
    case 302: return 3;
    case 404: return 4;
    case 418: return 4;
    case 500: return 5;
    case 503: return 5;
    case 10000: return 9;
    default: return 0;
    }
}

double scale_for_unit(char unit) {
    switch (unit) {
    case 'k': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'm': return 1e-3;
    case 'u': return 1e-6;
    case 'n': return 1e-9;
    default: return 1.0;
    }
}

uint32_t hash_keyword(uint64_t key) {
    switch (key) {
    case 0x1ull: return 11;
    case 0x100ull: return 12;
    case 0x10000ull: return 13;
    case 0xdeadbeefull: return 14;
    case 0xffffffffffull: return 15;
    case 0x8000000000000000ull: return 16;
    }
    return 0;
}

int classify_all(const int *codes, int n, int *hist) {
    int unknown = 0;
    for (int i = 0; i < n; ++i) {
        int c = http_class(codes[i]);
        if (c == 0)
            unknown++;
        else
            hist[c]++;
    }
    return unknown;
}
