/* Variable-length arrays and alloca for temporary workspaces. */
#include <alloca.h>
#include <string.h>

double moving_average_max(const double *x, int n, int w) {
    double window[w];
    double sum = 0, best = -1e300;
    for (int i = 0; i < w && i < n; ++i) {
        window[i] = x[i];
        sum += x[i];
    }
    if (n >= w)
        best = sum / w;
    for (int i = w; i < n; ++i) {
        sum += x[i] - window[i % w];
        window[i % w] = x[i];
        double avg = sum / w;
        if (avg > best)
            best = avg;
    }
    return best;
}

int histogram_mode(const unsigned char *data, int n, int bins) {
    int *counts = alloca(sizeof(int) * bins);
    memset(counts, 0, sizeof(int) * bins);
    for (int i = 0; i < n; ++i)
        counts[data[i] % bins]++;
    int mode = 0;
    for (int b = 1; b < bins; ++b)
        if (counts[b] > counts[mode])
            mode = b;
    return mode;
}

void matrix_square(int n, const double a[n][n], double out[n][n]) {
    double tmp[n][n];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k)
                s += a[i][k] * a[k][j];
            tmp[i][j] = s;
        }
    memcpy(out, tmp, sizeof tmp);
}

int longest_common_subseq(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    int dp[la + 1][lb + 1];
    for (int i = 0; i <= la; ++i)
        for (int j = 0; j <= lb; ++j) {
            if (i == 0 || j == 0)
                dp[i][j] = 0;
            else if (a[i - 1] == b[j - 1])
                dp[i][j] = dp[i - 1][j - 1] + 1;
            else
                dp[i][j] = dp[i - 1][j] > dp[i][j - 1] ? dp[i - 1][j] : dp[i][j - 1];
        }
    return dp[la][lb];
}
