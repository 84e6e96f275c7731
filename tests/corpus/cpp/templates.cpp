// Templates: class templates, function templates, specialization, constexpr, variadics.
#include <array>
#include <cstddef>
#include <cstdio>

template <typename T, std::size_t N>
struct Vec {
    std::array<T, N> d{};
    T &operator[](std::size_t i) { return d[i]; }
    const T &operator[](std::size_t i) const { return d[i]; }
    Vec operator+(const Vec &o) const {
        Vec r;
        for (std::size_t i = 0; i < N; ++i)
            r[i] = d[i] + o[i];
        return r;
    }
    Vec operator*(T s) const {
        Vec r;
        for (std::size_t i = 0; i < N; ++i)
            r[i] = d[i] * s;
        return r;
    }
    T dot(const Vec &o) const {
        T s{};
        for (std::size_t i = 0; i < N; ++i)
            s += d[i] * o[i];
        return s;
    }
};

template <typename T>
constexpr T ipow(T base, unsigned e) {
    return e == 0 ? T(1) : (e % 2 ? base * ipow(base * base, e / 2) : ipow(base * base, e / 2));
}

template <typename T>
T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (hi < v ? hi : v); }

template <>
float clamp_to<float>(float v, float lo, float hi) { return v != v ? lo : (v < lo ? lo : (hi < v ? hi : v)); }

template <typename... Ts>
auto sum_all(Ts... xs) { return (xs + ... + 0); }

template <unsigned N>
struct Factorial { static constexpr unsigned long value = N * Factorial<N - 1>::value; };
template <>
struct Factorial<0> { static constexpr unsigned long value = 1; };

double lerp3(const Vec<double, 3> &a, const Vec<double, 3> &b, double t) {
    return (a * (1 - t) + b * t).dot(Vec<double, 3>{{1, 1, 1}});
}

int int_stuff(int x) { return clamp_to(x, 0, 100) + ipow(3, 5) + sum_all(1, 2, x); }
float float_stuff(float x) { return clamp_to(x, 0.f, 1.f) * ipow(2.0f, 10); }

int main() {
    Vec<float, 4> a{{1, 2, 3, 4}};
    std::printf("%g %lu %d %g\n", (double)a.dot(a), Factorial<10>::value, int_stuff(7),
                lerp3({{1, 2, 3}}, {{3, 2, 1}}, 0.25));
    return 0;
}
