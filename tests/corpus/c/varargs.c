/* Variadic functions with va_list / va_arg. */
#include <stdarg.h>
#include <stdio.h>

double sum_doubles(int count, ...) {
    va_list ap;
    va_start(ap, count);
    double s = 0;
    for (int i = 0; i < count; ++i)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

long max_of(int count, ...) {
    va_list ap;
    va_start(ap, count);
    long m = va_arg(ap, long);
    for (int i = 1; i < count; ++i) {
        long v = va_arg(ap, long);
        if (v > m)
            m = v;
    }
    va_end(ap);
    return m;
}

int mini_format(char *out, int cap, const char *fmt, ...) {
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    int n = 0;
    for (const char *p = fmt; *p && n < cap - 1; ++p) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        switch (*++p) {
        case 'd': n += snprintf(out + n, cap - n, "%d", va_arg(ap, int)); break;
        case 'f': n += snprintf(out + n, cap - n, "%.2f", va_arg(ap, double)); break;
        case 's': n += snprintf(out + n, cap - n, "%s", va_arg(ap, const char *)); break;
        case 'c': out[n++] = (char)va_arg(ap, int); break;
        default: out[n++] = *p; break;
        }
    }
    out[n] = 0;
    va_end(copy);
    va_end(ap);
    return n;
}

void log_msg(int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (level > 0) {
        fprintf(stderr, "[%d] ", level);
        vfprintf(stderr, fmt, ap);
    }
    va_end(ap);
}
