// Exceptions: throw, try/catch by type, rethrow, custom exception hierarchy, noexcept.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct ParseError : std::runtime_error {
    int position;
    ParseError(const std::string &msg, int pos) : std::runtime_error(msg), position(pos) {}
};

double parse_positive(const std::string &s) {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used != s.size())
        throw ParseError("trailing characters in '" + s + "'", static_cast<int>(used));
    if (v <= 0)
        throw std::domain_error("not positive");
    return v;
}

double safe_log_sum(const std::vector<std::string> &items, int *errors) {
    double total = 0;
    *errors = 0;
    for (const auto &it : items) {
        try {
            total += std::log(parse_positive(it));
        } catch (const ParseError &e) {
            *errors += 100 + e.position;
        } catch (const std::domain_error &) {
            *errors += 10;
        } catch (...) {
            *errors += 1;
        }
    }
    return total;
}

int checked_index(const std::vector<int> &v, int i) {
    try {
        return v.at(static_cast<size_t>(i));
    } catch (const std::out_of_range &) {
        throw std::invalid_argument("bad index " + std::to_string(i));
    }
}

void rethrow_wrapper(int code) {
    try {
        if (code > 0)
            throw code;
    } catch (int c) {
        if (c > 10)
            throw;
    }
}

int quiet_sum(const int *a, int n) noexcept {
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += a[i];
    return s;
}

int main() {
    int errs = 0;
    double t = safe_log_sum({"1.5", "abc", "2x", "-3", "10"}, &errs);
    try {
        rethrow_wrapper(42);
    } catch (int c) {
        errs += c;
    }
    std::printf("%f %d\n", t, errs);
    return 0;
}
