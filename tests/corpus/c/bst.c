/* Binary search tree: recursive insert, in-order traversal with callback, height. */
#include <stdio.h>
#include <stdlib.h>

typedef struct tree {
    double key;
    int count;
    struct tree *left, *right;
} tree;

tree *insert(tree *t, double key) {
    if (!t) {
        t = malloc(sizeof *t);
        t->key = key;
        t->count = 1;
        t->left = t->right = NULL;
    } else if (key < t->key) {
        t->left = insert(t->left, key);
    } else if (key > t->key) {
        t->right = insert(t->right, key);
    } else {
        t->count++;
    }
    return t;
}

int height(const tree *t) {
    if (!t)
        return 0;
    int l = height(t->left), r = height(t->right);
    return 1 + (l > r ? l : r);
}

void inorder(const tree *t, void (*visit)(double, int, void *), void *ctx) {
    if (!t)
        return;
    inorder(t->left, visit, ctx);
    visit(t->key, t->count, ctx);
    inorder(t->right, visit, ctx);
}

static void accumulate(double key, int count, void *ctx) { *(double *)ctx += key * count; }

const tree *find_min(const tree *t) {
    while (t && t->left)
        t = t->left;
    return t;
}

void destroy(tree *t) {
    if (!t)
        return;
    destroy(t->left);
    destroy(t->right);
    free(t);
}

int main(void) {
    tree *root = NULL;
    unsigned s = 12345;
    for (int i = 0; i < 100; ++i) {
        s = s * 1103515245u + 12345u;
        root = insert(root, (s >> 16) % 50);
    }
    double total = 0;
    inorder(root, accumulate, &total);
    printf("h=%d total=%g min=%g\n", height(root), total, find_min(root)->key);
    destroy(root);
    return 0;
}
