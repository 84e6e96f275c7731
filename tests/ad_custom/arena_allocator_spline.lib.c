/* An "opaque library" (compiled natively): a frame arena. Blocks are taken from one
 * buffer; the arena rewinds when every block taken is released. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  char *base;
  size_t size, used;
  int live;
} Arena;

void arena_init(Arena *a, size_t size) {
  a->base = malloc(size);
  a->size = size;
  a->used = 0;
  a->live = 0;
}

void *arena_take(Arena *a, size_t bytes) {
  size_t start = (a->used + 15) & ~(size_t)15;
  if (start + bytes > a->size) {
    fprintf(stderr, "arena exhausted\n");
    abort();
  }
  a->used = start + bytes;
  a->live++;
  return a->base + start;
}

void arena_release(Arena *a, void *block) {
  if (block == NULL || a->live <= 0) abort();
  if (--a->live == 0) a->used = 0;
}

int arena_live(const Arena *a) { return a->live; }
