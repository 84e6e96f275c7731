/* Static, global, constant and thread-local data. */
#include <stddef.h>

int global_counter = 0;
static int file_counter;
const double coefficients[5] = {1.0, -0.5, 0.25, -0.125, 0.0625};
_Thread_local int tls_depth = 0;
static _Thread_local double tls_scratch[8];
extern int external_flag;
const char *const greetings[] = {"hello", "bonjour", "hola", NULL};
static struct {
    int w, h;
    const char *title;
} config = {640, 480, "corpus"};

int next_id(void) {
    static int id = 100;
    global_counter++;
    file_counter += 2;
    return id++;
}

double poly_eval(double x) {
    double r = 0;
    for (int i = 4; i >= 0; --i)
        r = r * x + coefficients[i];
    return r;
}

int enter(void) { return ++tls_depth; }
int leave(void) { return --tls_depth; }

double scratch_sum(const double *v, int n) {
    for (int i = 0; i < 8; ++i)
        tls_scratch[i] = 0;
    for (int i = 0; i < n; ++i)
        tls_scratch[i & 7] += v[i];
    double s = 0;
    for (int i = 0; i < 8; ++i)
        s += tls_scratch[i];
    return s;
}

int area(void) { return config.w * config.h + external_flag; }

size_t count_greetings(void) {
    size_t n = 0;
    while (greetings[n])
        n++;
    return n;
}

int *counter_addr(void) { return &file_counter; }
