/* C11 atomics: counters, compare-and-swap loops, spinlock, fences. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

static atomic_long hits;
static atomic_flag lock = ATOMIC_FLAG_INIT;
_Atomic double shared_max;

long record_hit(void) { return atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed) + 1; }

void spin_lock(void) {
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

void spin_unlock(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

void update_max(double v) {
    double cur = atomic_load(&shared_max);
    while (v > cur && !atomic_compare_exchange_weak(&shared_max, &cur, v))
        ;
}

bool try_claim(_Atomic int *slot, int owner) {
    int expected = 0;
    return atomic_compare_exchange_strong_explicit(slot, &expected, owner, memory_order_acq_rel,
                                                   memory_order_acquire);
}

uint32_t bump_flags(_Atomic uint32_t *f, uint32_t set, uint32_t clear) {
    atomic_fetch_or(f, set);
    uint32_t old = atomic_fetch_and_explicit(f, ~clear, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    return old;
}

int exchange_and_xor(_Atomic int *p, int v) {
    int old = atomic_exchange(p, v);
    atomic_fetch_xor_explicit(p, old, memory_order_release);
    atomic_signal_fence(memory_order_acquire);
    return old;
}

long snapshot(void) { return atomic_load_explicit(&hits, memory_order_acquire); }
