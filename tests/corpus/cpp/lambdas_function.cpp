// Lambdas, captures, std::function, higher-order functions, generic lambdas.
#include <functional>
#include <numeric>
#include <vector>

std::function<double(double)> compose(std::function<double(double)> f,
                                      std::function<double(double)> g) {
    return [f, g](double x) { return f(g(x)); };
}

std::function<double(double)> make_poly(std::vector<double> coeffs) {
    return [c = std::move(coeffs)](double x) {
        double r = 0;
        for (auto it = c.rbegin(); it != c.rend(); ++it)
            r = r * x + *it;
        return r;
    };
}

double derivative_at(const std::function<double(double)> &f, double x, double h = 1e-6) {
    return (f(x + h) - f(x - h)) / (2 * h);
}

template <typename F>
std::vector<double> map_vec(const std::vector<double> &v, F f) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double x : v)
        out.push_back(f(x));
    return out;
}

int counter_demo(int n) {
    int count = 0;
    auto inc = [&count](int by) { count += by; };
    for (int i = 0; i < n; ++i)
        inc(i % 3);
    auto twice = [](auto f, auto x) { return f(f(x)); };
    return count + twice([](int y) { return y * 2; }, 3);
}

double pipeline(const std::vector<double> &xs, double scale) {
    auto sq = [](double x) { return x * x; };
    auto scaled = map_vec(xs, [scale](double x) { return x * scale; });
    auto squared = map_vec(scaled, sq);
    auto f = compose(make_poly({1.0, 2.0, 3.0}), [](double x) { return x / 2; });
    return std::accumulate(squared.begin(), squared.end(), 0.0) + derivative_at(f, 1.0);
}

std::vector<std::function<int(int)>> make_adders(int n) {
    std::vector<std::function<int(int)>> fs;
    for (int i = 0; i < n; ++i)
        fs.emplace_back([i](int x) { return x + i; });
    return fs;
}
