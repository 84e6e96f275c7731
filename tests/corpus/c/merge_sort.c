/* Sorting: merge sort (top-down, with scratch buffer), insertion sort, binary search. */
#include <stdlib.h>
#include <string.h>

static void merge(int *a, int *tmp, int lo, int mid, int hi) {
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof(int));
}

static void insertion_sort(int *a, int lo, int hi) {
    for (int i = lo + 1; i < hi; ++i) {
        int v = a[i], j = i - 1;
        while (j >= lo && a[j] > v) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = v;
    }
}

static void msort(int *a, int *tmp, int lo, int hi) {
    if (hi - lo <= 16) {
        insertion_sort(a, lo, hi);
        return;
    }
    int mid = lo + (hi - lo) / 2;
    msort(a, tmp, lo, mid);
    msort(a, tmp, mid, hi);
    if (a[mid - 1] > a[mid])
        merge(a, tmp, lo, mid, hi);
}

int merge_sort(int *a, int n) {
    int *tmp = malloc(sizeof(int) * (size_t)n);
    if (!tmp)
        return -1;
    msort(a, tmp, 0, n);
    free(tmp);
    return 0;
}

int lower_bound(const int *a, int n, int key) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int is_sorted(const int *a, int n) {
    for (int i = 1; i < n; ++i)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}
