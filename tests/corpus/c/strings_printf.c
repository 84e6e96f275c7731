/* String handling and formatted output. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static size_t my_strlen(const char *s) {
    const char *p = s;
    while (*p)
        ++p;
    return (size_t)(p - s);
}

void reverse(char *s) {
    size_t n = my_strlen(s);
    for (size_t i = 0, j = n ? n - 1 : 0; i < j; ++i, --j) {
        char t = s[i];
        s[i] = s[j];
        s[j] = t;
    }
}

int count_words(const char *s) {
    int words = 0, in = 0;
    for (; *s; ++s) {
        if (isspace((unsigned char)*s))
            in = 0;
        else if (!in) {
            in = 1;
            ++words;
        }
    }
    return words;
}

void to_upper(char *s) {
    for (; *s; ++s)
        *s = (char)toupper((unsigned char)*s);
}

int format_record(char *buf, size_t cap, const char *name, int age, double score) {
    return snprintf(buf, cap, "%-10s|%3d|%8.3f", name, age, score);
}

int main(int argc, char **argv) {
    char buf[64];
    char word[] = "gradient";
    reverse(word);
    to_upper(word);
    format_record(buf, sizeof buf, word, argc, 3.14159);
    printf("%s words=%d\n", buf, count_words("the quick  brown fox"));
    if (argc > 1 && strcmp(argv[1], "-v") == 0)
        puts(strchr(buf, '|'));
    return 0;
}
