/* Recursion: fibonacci, ackermann, quicksort, tower of hanoi, power set count. */
#include <stdio.h>

long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

long ackermann(long m, long n) {
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static void swap(double *a, double *b) {
    double t = *a;
    *a = *b;
    *b = t;
}

void quicksort(double *v, int lo, int hi) {
    if (lo >= hi)
        return;
    double pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (v[i] < pivot) i++;
        while (v[j] > pivot) j--;
        if (i <= j)
            swap(&v[i++], &v[j--]);
    }
    quicksort(v, lo, j);
    quicksort(v, i, hi);
}

int hanoi(int n, int from, int to, int via) {
    if (n == 0)
        return 0;
    int moves = hanoi(n - 1, from, via, to);
    moves += 1;
    return moves + hanoi(n - 1, via, to, from);
}

static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

double power_rec(double x, int n) {
    if (n == 0) return 1.0;
    if (n < 0) return 1.0 / power_rec(x, -n);
    double h = power_rec(x, n / 2);
    return (n % 2) ? h * h * x : h * h;
}

int main(void) {
    double v[] = {5, 3, 9, 1, 7, 2};
    quicksort(v, 0, 5);
    printf("%ld %ld %d %d %g %g\n", fib(20), ackermann(2, 3), hanoi(10, 1, 3, 2),
           is_odd(17), power_rec(2.0, -3), v[0]);
    return 0;
}
