/* setjmp/longjmp error recovery in a recursive-descent expression parser. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf on_error;
static const char *cur;

static void fail(int code) { longjmp(on_error, code); }

static double expr(void);

static double primary(void) {
    if (*cur == '(') {
        cur++;
        double v = expr();
        if (*cur++ != ')')
            fail(2);
        return v;
    }
    if (*cur < '0' || *cur > '9')
        fail(1);
    double v = 0;
    while (*cur >= '0' && *cur <= '9')
        v = v * 10 + (*cur++ - '0');
    return v;
}

static double term(void) {
    double v = primary();
    while (*cur == '*' || *cur == '/') {
        char op = *cur++;
        double r = primary();
        if (op == '/' && r == 0)
            fail(3);
        v = op == '*' ? v * r : v / r;
    }
    return v;
}

static double expr(void) {
    double v = term();
    while (*cur == '+' || *cur == '-') {
        char op = *cur++;
        double r = term();
        v = op == '+' ? v + r : v - r;
    }
    return v;
}

int evaluate(const char *text, double *result) {
    volatile int attempts = 0;
    int code = setjmp(on_error);
    if (code != 0) {
        attempts++;
        return -code;
    }
    cur = text;
    *result = expr();
    return *cur == '\0' ? 0 : -4;
}

int main(void) {
    double r = 0;
    int c1 = evaluate("2*(3+4)-5", &r);
    int c2 = evaluate("1/0", &r);
    printf("%d %d %g\n", c1, c2, r);
    return 0;
}
