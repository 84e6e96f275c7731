/* malloc/free: a singly linked list with insertion sort, reversal and cleanup. */
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
    int key;
    double val;
    struct node *next;
} node;

node *push(node *head, int key, double val) {
    node *n = malloc(sizeof *n);
    if (!n)
        return head;
    n->key = key;
    n->val = val;
    n->next = head;
    return n;
}

node *sorted_insert(node *head, node *n) {
    if (!head || n->key < head->key) {
        n->next = head;
        return n;
    }
    node *cur = head;
    while (cur->next && cur->next->key <= n->key)
        cur = cur->next;
    n->next = cur->next;
    cur->next = n;
    return head;
}

node *reverse_list(node *head) {
    node *prev = NULL;
    while (head) {
        node *nx = head->next;
        head->next = prev;
        prev = head;
        head = nx;
    }
    return prev;
}

double sum_list(const node *h) {
    double s = 0;
    for (; h; h = h->next)
        s += h->val;
    return s;
}

void free_list(node *h) {
    while (h) {
        node *nx = h->next;
        free(h);
        h = nx;
    }
}

int main(void) {
    node *sorted = NULL;
    for (int i = 0; i < 20; ++i) {
        node *n = calloc(1, sizeof *n);
        n->key = (i * 7) % 13;
        n->val = i * 0.5;
        sorted = sorted_insert(sorted, n);
    }
    sorted = reverse_list(sorted);
    int *buf = realloc(NULL, 16 * sizeof(int));
    buf[0] = sorted->key;
    printf("%g %d\n", sum_list(sorted), buf[0]);
    free(buf);
    free_list(sorted);
    return 0;
}
