/*
 * enzyme/checkpoint.h -- checkpointed time loops in reverse mode (Enzyme's
 * __enzyme_checkpoint_for / __enzyme_checkpoint_while, as irgrad implements them).
 *
 *   __enzyme_checkpoint_for((void *)step, start, n,
 *                           enzyme_scheme, &scheme, &config,
 *                           [enzyme_checkpoint_region, ptr, bytes,]...
 *                           args...);
 *
 * runs `for (int64_t i = start; i < start + n; i++) step(i, args...);` and
 *
 *   __enzyme_checkpoint_while((void *)step, enzyme_scheme, &scheme, &config,
 *                             [enzyme_checkpoint_region, ptr, bytes,]... args...);
 *
 * runs `int64_t i = 0; while (step(i++, args...));`.
 *
 * Inside a reverse-mode derivative the steps are not all taped. A scheme decides, step by
 * step, which states to keep (snapshots), which steps to run again, and when to
 * differentiate a step; irgrad keeps the tape of one step at a time (each step is
 * differentiated by its combined derivative, its forward and reverse passes together).
 * A snapshot holds the listed regions and the globals the step writes, or reads while
 * other code writes them. In forward mode the loop runs with the step's tangent.
 *
 * The protocol is Revolve's (Griewank and Walther, ACM TOMS Alg. 799) with the action
 * flags and action layout of Checkpointing.jl, as Enzyme defines it; steps are counted
 * from 0 (step j is called with i = start + j):
 *
 *   STORE      (iteration c, cpnum k)  the state is the one before step c: keep it in k
 *   RESTORE    (iteration c, cpnum k)  make the state the one kept in k (before step c)
 *   FORWARD    (startiteration a, iteration b)  run steps a .. b-1 without taping
 *   FIRSTUTURN (iteration b)  the state is before step b-1, the last one: the forward
 *                             sweep keeps it in slot -2, runs that step and ends there;
 *                             the reverse sweep starts by differentiating it
 *   UTURN      (iteration b)  differentiate step b-1 from the current state
 *   DONE                      the schedule is over (first action when n is 0)
 *
 * Besides the slots the actions name, the driver keeps slot -2 (above) and slot -1, the
 * state the reverse sweep found, restored at the end: the primal memory is left as the
 * forward sweep left it. A while loop's scheme is initialized with nsteps = -1 and told
 * the number of steps (set_nsteps) when the step returns 0.
 *
 * Reference schemes, used as `enzyme_scheme, &EnzymeCkptRevolve, &config`:
 *   EnzymeCkptRevolve    binomial checkpointing with config.snapshots slots
 *   EnzymeCkptPeriodic   config.snapshots segments; the segment being reversed keeps
 *                        the state before each of its steps
 *   EnzymeCkptStoreAll   a snapshot before every step (also for while loops)
 * They keep snapshots in memory, or in files under config.spill_dir past
 * config.mem_budget bytes.
 *
 * Not supported by irgrad: vector mode (enzyme_width) of a checkpointed loop, and the
 * loop attributes (enzyme_checkpointing_*): located errors.
 */
#ifndef ENZYME_CHECKPOINT_H
#define ENZYME_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENZYME_CKPT_ABI_VERSION 1

enum {
  ENZYME_CKPT_NONE = 0,
  ENZYME_CKPT_STORE = 1,
  ENZYME_CKPT_RESTORE = 2,
  ENZYME_CKPT_FORWARD = 3,
  ENZYME_CKPT_FIRSTUTURN = 4,
  ENZYME_CKPT_UTURN = 5,
  ENZYME_CKPT_ERROR = 6,
  ENZYME_CKPT_DONE = 7
};

typedef struct EnzymeCkptAction {
  int32_t flag;
  int64_t iteration;
  int64_t startiteration;
  int64_t cpnum;
} EnzymeCkptAction;

typedef struct EnzymeCkptRegion {
  void *ptr;
  uint64_t bytes;
  uint32_t addrspace;
  uint32_t flags;
} EnzymeCkptRegion;

typedef struct EnzymeCheckpointScheme {
  uint32_t version;
  void *(*init)(void *data, int64_t nsteps, uint64_t snapshot_bytes);
  void (*next_action)(void *state, EnzymeCkptAction *out);
  void (*store)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                uint64_t nregions);
  void (*restore)(void *state, int64_t slot, int64_t step, const EnzymeCkptRegion *regions,
                  uint64_t nregions);
  void (*set_nsteps)(void *state, int64_t nsteps);
  void (*finalize)(void *state);
  /* optional: the scheme copies the step's arguments itself; env holds the arguments
     after i, each followed by its shadow if it has one */
  void (*save_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*load_state)(void *state, int64_t slot, int64_t step, void *env);
  /* optional: what the step reaches through its first argument after i; irgrad
     describes it as the whole object, read and written: {0, -1, 3} */
  void (*set_paths)(void *state, const int64_t *paths, uint64_t len);
} EnzymeCheckpointScheme;

extern int enzyme_scheme;
extern int enzyme_checkpoint_region;

void __enzyme_checkpoint_for(void *step, int64_t start, int64_t n, ...);
void __enzyme_checkpoint_while(void *step, ...);

typedef struct EnzymeCkptStats {
  int64_t forward_steps; /* steps run without taping */
  int64_t taped_steps;   /* steps differentiated */
  int64_t stores;
  int64_t restores;
  int64_t max_slots; /* most slots in use at once */
  uint64_t max_bytes;
} EnzymeCkptStats;

typedef struct EnzymeCkptConfig {
  int64_t snapshots;     /* Revolve: slots; Periodic: segments */
  int verbose;           /* 1: a summary on stderr; 2: also every action */
  const char *spill_dir; /* NULL: snapshots stay in memory */
  uint64_t mem_budget;   /* with spill_dir: bytes kept in memory */
  EnzymeCkptStats *stats; /* filled in when the schedule completes */
} EnzymeCkptConfig;

/* ---- irgrad's reference implementation ----------------------------------------- */

static inline void irgrad_ckpt_die(const char *what) {
  fprintf(stderr, "irgrad: checkpointed loop: %s\n", what);
  abort();
}

/* one schedule: its action queue, its snapshot slots and its statistics */
typedef struct irgrad_ckpt_schedule {
  const EnzymeCkptConfig *config;
  uint64_t bytes;          /* of one snapshot */
  EnzymeCkptAction *queue; /* actions still to hand out, from head */
  int64_t head, len, cap;
  void **slot_data; /* index slot + 2 (the driver's -2 and -1 first) */
  unsigned char *on_disk;
  int64_t nslots, in_use;
  int64_t steps, snaps, pos; /* pos: a while loop's next step, before set_nsteps */
  int online, store_next;
  EnzymeCkptStats stats;
} irgrad_ckpt_schedule;

static inline void irgrad_ckpt_push(irgrad_ckpt_schedule *s, int32_t flag, int64_t iteration,
                                    int64_t start, int64_t cpnum) {
  if (s->len == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->queue = (EnzymeCkptAction *)realloc(s->queue, (size_t)s->cap * sizeof(EnzymeCkptAction));
    if (!s->queue) irgrad_ckpt_die("out of memory for the schedule");
  }
  EnzymeCkptAction *a = &s->queue[s->len++];
  a->flag = flag;
  a->iteration = iteration;
  a->startiteration = start;
  a->cpnum = cpnum;
}

static inline irgrad_ckpt_schedule *irgrad_ckpt_new(void *data, int64_t nsteps, uint64_t bytes) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)calloc(1, sizeof(*s));
  if (!s) irgrad_ckpt_die("out of memory");
  s->config = (const EnzymeCkptConfig *)data;
  s->bytes = bytes;
  s->steps = nsteps;
  s->snaps = s->config && s->config->snapshots > 0 ? s->config->snapshots : 1;
  return s;
}

static inline void irgrad_ckpt_spill_path(irgrad_ckpt_schedule *s, int64_t idx, char *buf,
                                          size_t n) {
  snprintf(buf, n, "%s/irgrad_ckpt_%p_%lld.bin", s->config->spill_dir, (void *)s,
           (long long)idx);
}

static inline void irgrad_ckpt_put(void *state, int64_t slot, int64_t step,
                                   const EnzymeCkptRegion *regions, uint64_t nregions) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)state;
  int64_t idx = slot + 2;
  (void)step;
  if (idx < 0) irgrad_ckpt_die("a snapshot slot below -2");
  if (idx >= s->nslots) {
    int64_t n = s->nslots ? s->nslots : 8;
    while (n <= idx) n *= 2;
    s->slot_data = (void **)realloc(s->slot_data, (size_t)n * sizeof(void *));
    s->on_disk = (unsigned char *)realloc(s->on_disk, (size_t)n);
    if (!s->slot_data || !s->on_disk) irgrad_ckpt_die("out of memory for snapshots");
    for (int64_t k = s->nslots; k < n; k++) {
      s->slot_data[k] = NULL;
      s->on_disk[k] = 0;
    }
    s->nslots = n;
  }
  const EnzymeCkptConfig *c = s->config;
  int spill = c && c->spill_dir && (uint64_t)idx * s->bytes >= c->mem_budget;
  if (spill) {
    char path[4096];
    irgrad_ckpt_spill_path(s, idx, path, sizeof path);
    FILE *f = fopen(path, "wb");
    if (!f) irgrad_ckpt_die("cannot write a snapshot file in spill_dir");
    for (uint64_t r = 0; r < nregions; r++)
      if (fwrite(regions[r].ptr, 1, regions[r].bytes, f) != regions[r].bytes)
        irgrad_ckpt_die("short write of a snapshot file");
    fclose(f);
    s->on_disk[idx] = 1;
    s->slot_data[idx] = (void *)1;
  } else {
    if (!s->slot_data[idx] || s->on_disk[idx]) s->slot_data[idx] = malloc(s->bytes ? s->bytes : 1);
    if (!s->slot_data[idx]) irgrad_ckpt_die("out of memory for a snapshot");
    s->on_disk[idx] = 0;
    uint64_t off = 0;
    for (uint64_t r = 0; r < nregions; r++) {
      memcpy((char *)s->slot_data[idx] + off, regions[r].ptr, regions[r].bytes);
      off += regions[r].bytes;
    }
  }
  if (slot >= 0) {
    s->stats.stores++;
    if (slot + 1 > s->in_use) s->in_use = slot + 1;
    if (s->in_use > s->stats.max_slots) {
      s->stats.max_slots = s->in_use;
      s->stats.max_bytes = (uint64_t)s->in_use * s->bytes;
    }
  }
}

static inline void irgrad_ckpt_get(void *state, int64_t slot, int64_t step,
                                   const EnzymeCkptRegion *regions, uint64_t nregions) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)state;
  int64_t idx = slot + 2;
  (void)step;
  if (idx < 0 || idx >= s->nslots || !s->slot_data[idx])
    irgrad_ckpt_die("restore of a slot that holds no snapshot");
  if (s->on_disk[idx]) {
    char path[4096];
    irgrad_ckpt_spill_path(s, idx, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) irgrad_ckpt_die("cannot read a snapshot file");
    for (uint64_t r = 0; r < nregions; r++)
      if (fread(regions[r].ptr, 1, regions[r].bytes, f) != regions[r].bytes)
        irgrad_ckpt_die("short read of a snapshot file");
    fclose(f);
  } else {
    uint64_t off = 0;
    for (uint64_t r = 0; r < nregions; r++) {
      memcpy(regions[r].ptr, (char *)s->slot_data[idx] + off, regions[r].bytes);
      off += regions[r].bytes;
    }
  }
  if (slot >= 0) s->stats.restores++;
}

static inline void irgrad_ckpt_next(void *state, EnzymeCkptAction *out) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)state;
  if (s->online) { /* a while loop before its end: store before each step, then run it */
    out->startiteration = s->pos;
    out->cpnum = s->pos;
    if (s->store_next) {
      out->flag = ENZYME_CKPT_STORE;
      out->iteration = s->pos;
    } else {
      out->flag = ENZYME_CKPT_FORWARD;
      out->iteration = ++s->pos;
    }
    s->store_next = !s->store_next;
  } else if (s->head < s->len) {
    *out = s->queue[s->head++];
  } else {
    out->flag = ENZYME_CKPT_DONE;
    out->iteration = out->startiteration = 0;
    out->cpnum = -1;
  }
  if (out->flag == ENZYME_CKPT_FORWARD) s->stats.forward_steps += out->iteration - out->startiteration;
  if (out->flag == ENZYME_CKPT_FIRSTUTURN || out->flag == ENZYME_CKPT_UTURN) s->stats.taped_steps++;
  if (s->config && s->config->verbose > 1)
    fprintf(stderr, "irgrad: checkpoint action %d iteration %lld start %lld slot %lld\n",
            (int)out->flag, (long long)out->iteration, (long long)out->startiteration,
            (long long)out->cpnum);
}

static inline void irgrad_ckpt_finalize(void *state) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)state;
  const EnzymeCkptConfig *c = s->config;
  if (c && c->verbose > 0)
    fprintf(stderr, "irgrad: checkpointed loop: %lld steps run again, %lld taped, %lld stores, "
            "%lld restores, %lld slots (%llu bytes)\n", (long long)s->stats.forward_steps,
            (long long)s->stats.taped_steps, (long long)s->stats.stores,
            (long long)s->stats.restores, (long long)s->stats.max_slots,
            (unsigned long long)s->stats.max_bytes);
  if (c && c->stats) *c->stats = s->stats;
  for (int64_t k = 0; k < s->nslots; k++) {
    if (!s->slot_data[k]) continue;
    if (s->on_disk[k]) {
      char path[4096];
      irgrad_ckpt_spill_path(s, k, path, sizeof path);
      remove(path);
    } else {
      free(s->slot_data[k]);
    }
  }
  free(s->slot_data);
  free(s->on_disk);
  free(s->queue);
  free(s);
}

/* -- binomial checkpointing: the whole schedule, computed when n is known -- */

/* the length of the right part when `len` steps are reversed from a kept state with
   `free` more slots: C(s+t-1, t) for the fewest repetitions t with C(s+t, t) >= len */
static inline int64_t irgrad_ckpt_right_part(int64_t len, int64_t free) {
  double beta = 1.0; /* C(free + t, t) */
  int64_t t = 0;
  while (beta < (double)len) {
    t++;
    beta = beta * (double)(free + t) / (double)t;
  }
  double right = beta * (double)free / (double)(free + t); /* C(free - 1 + t, t) */
  int64_t r = (int64_t)right;
  if (r > len - 1) r = len - 1;
  return r < 1 ? 1 : r;
}

static inline void irgrad_ckpt_turn(irgrad_ckpt_schedule *s, int64_t step, int *first) {
  irgrad_ckpt_push(s, *first ? ENZYME_CKPT_FIRSTUTURN : ENZYME_CKPT_UTURN, step + 1, step, -1);
  *first = 0;
}

/* the state before step a is current and kept in `slot`: reverse steps a .. b-1 */
static inline void irgrad_ckpt_binomial(irgrad_ckpt_schedule *s, int64_t a, int64_t b,
                                        int64_t slot, int *first) {
  while (b - a > 1) {
    int64_t free = s->snaps - slot - 1;
    if (free <= 0) { /* no slot left: run from a again for each step */
      for (int64_t j = b - 1; j > a; j--) {
        irgrad_ckpt_push(s, ENZYME_CKPT_FORWARD, j, a, slot);
        irgrad_ckpt_turn(s, j, first);
        irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, slot);
      }
      break;
    }
    int64_t m = b - irgrad_ckpt_right_part(b - a, free);
    irgrad_ckpt_push(s, ENZYME_CKPT_FORWARD, m, a, slot);
    irgrad_ckpt_push(s, ENZYME_CKPT_STORE, m, m, slot + 1);
    irgrad_ckpt_binomial(s, m, b, slot + 1, first);
    irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, slot);
    b = m;
  }
  irgrad_ckpt_turn(s, a, first);
}

static inline void *irgrad_ckpt_revolve_init(void *data, int64_t nsteps, uint64_t bytes) {
  irgrad_ckpt_schedule *s = irgrad_ckpt_new(data, nsteps, bytes);
  int first = 1;
  if (nsteps < 0) irgrad_ckpt_die("EnzymeCkptRevolve needs the number of steps (a for loop)");
  if (s->snaps > nsteps && nsteps > 0) s->snaps = nsteps;
  if (nsteps > 0) {
    irgrad_ckpt_push(s, ENZYME_CKPT_STORE, 0, 0, 0);
    irgrad_ckpt_binomial(s, 0, nsteps, 0, &first);
  }
  return s;
}

/* -- periodic checkpointing: segment starts kept, the reversed segment's steps kept -- */

static inline int64_t irgrad_ckpt_segment_start(irgrad_ckpt_schedule *s, int64_t k) {
  return k * s->steps / s->snaps;
}

/* the state is before step a: keep each step's state, turn at the last, go back */
static inline void irgrad_ckpt_segment(irgrad_ckpt_schedule *s, int64_t a, int64_t e,
                                       int64_t base, int *first) {
  for (int64_t j = a; j < e - 1; j++) {
    irgrad_ckpt_push(s, ENZYME_CKPT_STORE, j, j, base + (j - a));
    irgrad_ckpt_push(s, ENZYME_CKPT_FORWARD, j + 1, j, base + (j - a));
  }
  irgrad_ckpt_turn(s, e - 1, first);
  for (int64_t j = e - 2; j >= a; j--) {
    irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, j, j, base + (j - a));
    irgrad_ckpt_turn(s, j, first);
  }
}

static inline void irgrad_ckpt_periodic_plan(irgrad_ckpt_schedule *s) {
  int first = 1;
  int64_t K = s->snaps;
  if (s->steps == 0) return;
  if (K > s->steps) K = s->snaps = s->steps;
  for (int64_t k = 0; k + 1 < K; k++) {
    int64_t a = irgrad_ckpt_segment_start(s, k), b = irgrad_ckpt_segment_start(s, k + 1);
    irgrad_ckpt_push(s, ENZYME_CKPT_STORE, a, a, k);
    irgrad_ckpt_push(s, ENZYME_CKPT_FORWARD, b, a, k);
  }
  for (int64_t k = K - 1; k >= 0; k--) {
    int64_t a = irgrad_ckpt_segment_start(s, k), e = irgrad_ckpt_segment_start(s, k + 1);
    if (k + 1 < K) irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, a, a, k);
    irgrad_ckpt_segment(s, a, e, K, &first);
  }
}

static inline void *irgrad_ckpt_periodic_init(void *data, int64_t nsteps, uint64_t bytes) {
  irgrad_ckpt_schedule *s = irgrad_ckpt_new(data, nsteps, bytes);
  if (nsteps < 0) irgrad_ckpt_die("EnzymeCkptPeriodic needs the number of steps (a for loop)");
  irgrad_ckpt_periodic_plan(s);
  return s;
}

static inline void *irgrad_ckpt_store_all_init(void *data, int64_t nsteps, uint64_t bytes) {
  irgrad_ckpt_schedule *s = irgrad_ckpt_new(data, nsteps, bytes);
  s->snaps = 1;
  if (nsteps < 0) { /* a while loop: store before every step until it ends */
    s->online = 1;
    s->store_next = 1;
  } else {
    irgrad_ckpt_periodic_plan(s);
  }
  return s;
}

/* the while loop ended after n steps, the state before each kept in slot j: go back to
   the last and reverse from there */
static inline void irgrad_ckpt_store_all_set_nsteps(void *state, int64_t n) {
  irgrad_ckpt_schedule *s = (irgrad_ckpt_schedule *)state;
  int first = 1;
  s->online = 0;
  s->steps = n;
  s->head = s->len = 0;
  irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, n - 1, n - 1, n - 1);
  irgrad_ckpt_turn(s, n - 1, &first);
  for (int64_t j = n - 2; j >= 0; j--) {
    irgrad_ckpt_push(s, ENZYME_CKPT_RESTORE, j, j, j);
    irgrad_ckpt_turn(s, j, &first);
  }
}

static const EnzymeCheckpointScheme EnzymeCkptRevolve = {
    ENZYME_CKPT_ABI_VERSION, irgrad_ckpt_revolve_init, irgrad_ckpt_next, irgrad_ckpt_put,
    irgrad_ckpt_get, NULL, irgrad_ckpt_finalize, NULL, NULL, NULL};
static const EnzymeCheckpointScheme EnzymeCkptPeriodic = {
    ENZYME_CKPT_ABI_VERSION, irgrad_ckpt_periodic_init, irgrad_ckpt_next, irgrad_ckpt_put,
    irgrad_ckpt_get, NULL, irgrad_ckpt_finalize, NULL, NULL, NULL};
static const EnzymeCheckpointScheme EnzymeCkptStoreAll = {
    ENZYME_CKPT_ABI_VERSION, irgrad_ckpt_store_all_init, irgrad_ckpt_next, irgrad_ckpt_put,
    irgrad_ckpt_get, irgrad_ckpt_store_all_set_nsteps, irgrad_ckpt_finalize, NULL, NULL, NULL};

/* -- the driver irgrad's derivatives call (kept in every unit that includes this) -- */

typedef int (*irgrad_ckpt_run_fn)(void *env, int64_t step);  /* run a step: go on? */
typedef void (*irgrad_ckpt_taped_fn)(void *env, int64_t step); /* differentiate a step */

typedef struct irgrad_ckpt_tape {
  void *state;
  int64_t turn; /* the iteration of the first turn, or -1 (done at once) */
  int64_t steps;
} irgrad_ckpt_tape;

static inline void irgrad_ckpt_keep(const EnzymeCheckpointScheme *sc, void *st, int64_t slot,
                                    int64_t step, const EnzymeCkptRegion *r, uint64_t nr,
                                    void *env) {
  if (sc->store) sc->store(st, slot, step, r, nr);
  else if (sc->save_state) sc->save_state(st, slot, step, env);
  else irgrad_ckpt_die("the scheme has neither store nor save_state");
}

static inline void irgrad_ckpt_load(const EnzymeCheckpointScheme *sc, void *st, int64_t slot,
                                    int64_t step, const EnzymeCkptRegion *r, uint64_t nr,
                                    void *env) {
  if (sc->restore) sc->restore(st, slot, step, r, nr);
  else if (sc->load_state) sc->load_state(st, slot, step, env);
  else irgrad_ckpt_die("the scheme has neither restore nor load_state");
}

__attribute__((used)) static void *__irgrad_ckpt_forward_sweep(
    const EnzymeCheckpointScheme *sc, void *config, int64_t n, const EnzymeCkptRegion *r,
    uint64_t nr, void *env, irgrad_ckpt_run_fn run) {
  uint64_t bytes = 0;
  for (uint64_t k = 0; k < nr; k++) bytes += r[k].bytes;
  if (!sc || sc->version != ENZYME_CKPT_ABI_VERSION || !sc->init || !sc->next_action)
    irgrad_ckpt_die("the scheme is not an EnzymeCheckpointScheme of ABI version 1");
  irgrad_ckpt_tape *t = (irgrad_ckpt_tape *)malloc(sizeof *t);
  if (!t) irgrad_ckpt_die("out of memory");
  t->state = sc->init(config, n, bytes);
  t->steps = n;
  t->turn = -1;
  if (sc->set_paths) {
    const int64_t whole[3] = {0, -1, 3};
    sc->set_paths(t->state, whole, 3);
  }
  for (;;) {
    EnzymeCkptAction a;
    sc->next_action(t->state, &a);
    switch (a.flag) {
    case ENZYME_CKPT_STORE: irgrad_ckpt_keep(sc, t->state, a.cpnum, a.iteration, r, nr, env); break;
    case ENZYME_CKPT_RESTORE: irgrad_ckpt_load(sc, t->state, a.cpnum, a.iteration, r, nr, env); break;
    case ENZYME_CKPT_FORWARD:
      for (int64_t j = a.startiteration; j < a.iteration; j++)
        if (!run(env, j) && t->steps < 0) { /* a while loop ended after step j */
          t->steps = j + 1;
          if (!sc->set_nsteps) irgrad_ckpt_die("the scheme cannot take a while loop (no set_nsteps)");
          sc->set_nsteps(t->state, t->steps);
          break;
        }
      break;
    case ENZYME_CKPT_FIRSTUTURN:
      irgrad_ckpt_keep(sc, t->state, -2, a.iteration - 1, r, nr, env);
      run(env, a.iteration - 1);
      t->turn = a.iteration;
      return t;
    case ENZYME_CKPT_DONE:
      return t;
    default:
      irgrad_ckpt_die("the scheme asked for an action the forward sweep cannot take");
    }
  }
}

__attribute__((used)) static void __irgrad_ckpt_reverse_sweep(
    void *tape, const EnzymeCheckpointScheme *sc, const EnzymeCkptRegion *r, uint64_t nr,
    void *env, irgrad_ckpt_run_fn run, irgrad_ckpt_taped_fn taped) {
  irgrad_ckpt_tape *t = (irgrad_ckpt_tape *)tape;
  if (t->turn >= 0) {
    irgrad_ckpt_keep(sc, t->state, -1, t->steps, r, nr, env);
    irgrad_ckpt_load(sc, t->state, -2, t->turn - 1, r, nr, env);
    taped(env, t->turn - 1);
    for (int done = 0; !done;) {
      EnzymeCkptAction a;
      sc->next_action(t->state, &a);
      switch (a.flag) {
      case ENZYME_CKPT_STORE: irgrad_ckpt_keep(sc, t->state, a.cpnum, a.iteration, r, nr, env); break;
      case ENZYME_CKPT_RESTORE: irgrad_ckpt_load(sc, t->state, a.cpnum, a.iteration, r, nr, env); break;
      case ENZYME_CKPT_FORWARD:
        for (int64_t j = a.startiteration; j < a.iteration; j++) run(env, j);
        break;
      case ENZYME_CKPT_UTURN: taped(env, a.iteration - 1); break;
      case ENZYME_CKPT_DONE:
        irgrad_ckpt_load(sc, t->state, -1, t->steps, r, nr, env);
        done = 1;
        break;
      default:
        irgrad_ckpt_die("the scheme asked for an action the reverse sweep cannot take");
      }
    }
  }
  if (sc->finalize) sc->finalize(t->state);
  free(t);
}

#ifdef __cplusplus
}
#endif

#endif /* ENZYME_CHECKPOINT_H */
