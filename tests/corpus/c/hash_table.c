/* Open-addressing hash table with string keys (FNV-1a hashing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key;
    int value;
} entry;

typedef struct {
    entry *slots;
    size_t cap, len;
} table;

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ull;
    }
    return h;
}

table *table_new(size_t cap) {
    table *t = malloc(sizeof *t);
    t->slots = calloc(cap, sizeof(entry));
    t->cap = cap;
    t->len = 0;
    return t;
}

static int table_grow(table *t);

int table_put(table *t, const char *key, int value) {
    if (2 * (t->len + 1) > t->cap && !table_grow(t))
        return 0;
    size_t i = fnv1a(key) & (t->cap - 1);
    while (t->slots[i].key) {
        if (strcmp(t->slots[i].key, key) == 0) {
            t->slots[i].value = value;
            return 1;
        }
        i = (i + 1) & (t->cap - 1);
    }
    t->slots[i].key = strdup(key);
    t->slots[i].value = value;
    t->len++;
    return 1;
}

static int table_grow(table *t) {
    entry *old = t->slots;
    size_t oldcap = t->cap;
    t->slots = calloc(oldcap * 2, sizeof(entry));
    if (!t->slots) {
        t->slots = old;
        return 0;
    }
    t->cap = oldcap * 2;
    t->len = 0;
    for (size_t i = 0; i < oldcap; ++i)
        if (old[i].key) {
            table_put(t, old[i].key, old[i].value);
            free(old[i].key);
        }
    free(old);
    return 1;
}

int *table_get(table *t, const char *key) {
    size_t i = fnv1a(key) & (t->cap - 1);
    while (t->slots[i].key) {
        if (strcmp(t->slots[i].key, key) == 0)
            return &t->slots[i].value;
        i = (i + 1) & (t->cap - 1);
    }
    return NULL;
}

void table_free(table *t) {
    for (size_t i = 0; i < t->cap; ++i)
        free(t->slots[i].key);
    free(t->slots);
    free(t);
}
