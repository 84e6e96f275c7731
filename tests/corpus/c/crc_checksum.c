/* Checksums: table-driven CRC-32, Adler-32 and a Fletcher-16. */
#include <stddef.h>
#include <stdint.h>

static uint32_t crc_table[256];
static int table_ready;

static void make_table(void) {
    for (uint32_t n = 0; n < 256; ++n) {
        uint32_t c = n;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
    table_ready = 1;
}

uint32_t crc32(const uint8_t *buf, size_t len) {
    if (!table_ready)
        make_table();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; ++i)
        c = crc_table[(c ^ buf[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

uint32_t adler32(const uint8_t *data, size_t len) {
    uint32_t a = 1, b = 0;
    const uint32_t MOD = 65521;
    while (len > 0) {
        size_t chunk = len < 5552 ? len : 5552;
        len -= chunk;
        while (chunk--) {
            a += *data++;
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    return (b << 16) | a;
}

uint16_t fletcher16(const uint8_t *data, size_t n) {
    uint16_t s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; ++i) {
        s1 = (uint16_t)((s1 + data[i]) % 255);
        s2 = (uint16_t)((s2 + s1) % 255);
    }
    return (uint16_t)((s2 << 8) | s1);
}

uint8_t parity(const uint8_t *data, size_t n) {
    uint8_t p = 0;
    for (size_t i = 0; i < n; ++i)
        p ^= data[i];
    p ^= p >> 4;
    p ^= p >> 2;
    p ^= p >> 1;
    return p & 1;
}
