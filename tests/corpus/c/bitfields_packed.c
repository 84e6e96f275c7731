/* Bit-fields, packed and aligned structs, flexible array members, offsetof. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct header {
    unsigned version : 3;
    unsigned flags : 5;
    unsigned length : 12;
    unsigned kind : 4;
    signed delta : 8;
};

struct __attribute__((packed)) wire {
    uint8_t tag;
    uint32_t value;
    uint16_t crc;
};

struct __attribute__((aligned(32))) aligned_block {
    double data[3];
};

struct blob {
    size_t n;
    double items[];
};

unsigned pack_header(unsigned v, unsigned f, unsigned len, unsigned k, int d) {
    struct header h = {v, f, len, k, d};
    unsigned out;
    memcpy(&out, &h, sizeof out);
    return out;
}

int header_delta(struct header h) { return h.delta + (int)h.length; }

uint32_t wire_value(const struct wire *w) { return w->value ^ w->tag ^ w->crc; }

size_t wire_offsets(void) {
    return offsetof(struct wire, value) * 100 + offsetof(struct wire, crc) * 10 + sizeof(struct wire);
}

double block_sum(const struct aligned_block *b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += b[i].data[0] + b[i].data[1] + b[i].data[2];
    return s;
}

struct blob *blob_new(size_t n, double fill) {
    struct blob *b = malloc(sizeof *b + n * sizeof(double));
    b->n = n;
    for (size_t i = 0; i < n; ++i)
        b->items[i] = fill * (double)i;
    return b;
}

double blob_last(const struct blob *b) { return b->n ? b->items[b->n - 1] : 0.0; }
