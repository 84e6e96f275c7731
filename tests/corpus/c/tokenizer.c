/* A hand-written tokenizer with a character-class table and token counting. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum tok { T_EOF, T_IDENT, T_NUMBER, T_STRING, T_PUNCT, T_ERROR };

typedef struct {
    enum tok kind;
    const char *start;
    int len;
    double number;
} token;

static const char *src;

token next_token(void) {
    token t = {T_EOF, src, 0, 0};
    while (isspace((unsigned char)*src))
        src++;
    t.start = src;
    if (!*src)
        return t;
    if (isalpha((unsigned char)*src) || *src == '_') {
        while (isalnum((unsigned char)*src) || *src == '_')
            src++;
        t.kind = T_IDENT;
    } else if (isdigit((unsigned char)*src)) {
        char *end;
        t.number = strtod(src, &end);
        src = end;
        t.kind = T_NUMBER;
    } else if (*src == '"') {
        src++;
        while (*src && *src != '"')
            src += (*src == '\\' && src[1]) ? 2 : 1;
        t.kind = *src == '"' ? T_STRING : T_ERROR;
        if (*src)
            src++;
    } else if (strchr("+-*/(){};,=<>", *src)) {
        src++;
        t.kind = T_PUNCT;
    } else {
        src++;
        t.kind = T_ERROR;
    }
    t.len = (int)(src - t.start);
    return t;
}

int count_tokens(const char *text, int counts[6], double *numsum) {
    src = text;
    int total = 0;
    *numsum = 0;
    for (;;) {
        token t = next_token();
        if (t.kind == T_EOF)
            break;
        counts[t.kind]++;
        if (t.kind == T_NUMBER)
            *numsum += t.number;
        total++;
    }
    return total;
}

int atoi_checked(const char *s, int *ok) {
    char *end;
    long v = strtol(s, &end, 10);
    *ok = *end == '\0' && end != s;
    return (int)v;
}
