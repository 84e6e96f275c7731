// RAII: custom resource owners, move semantics, smart pointers, scope guards.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

class Buffer {
    double *data_ = nullptr;
    std::size_t n_ = 0;
public:
    explicit Buffer(std::size_t n) : data_(static_cast<double *>(std::calloc(n, sizeof(double)))), n_(n) {}
    ~Buffer() { std::free(data_); }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    Buffer(Buffer &&o) noexcept : data_(std::exchange(o.data_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    Buffer &operator=(Buffer &&o) noexcept {
        if (this != &o) {
            std::free(data_);
            data_ = std::exchange(o.data_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    double &operator[](std::size_t i) { return data_[i]; }
    std::size_t size() const { return n_; }
};

template <typename F>
class ScopeGuard {
    F f_;
    bool active_ = true;
public:
    explicit ScopeGuard(F f) : f_(std::move(f)) {}
    ~ScopeGuard() { if (active_) f_(); }
    void dismiss() { active_ = false; }
};

static int live_objects = 0;

struct Tracked {
    int id;
    explicit Tracked(int i) : id(i) { ++live_objects; }
    ~Tracked() { --live_objects; }
};

double fill_and_sum(std::size_t n) {
    Buffer b(n);
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = 0.5 * static_cast<double>(i);
    Buffer moved = std::move(b);
    double s = 0;
    for (std::size_t i = 0; i < moved.size(); ++i)
        s += moved[i];
    return s;
}

int shared_demo() {
    auto a = std::make_shared<Tracked>(1);
    std::weak_ptr<Tracked> w = a;
    {
        auto b = a;
        auto u = std::make_unique<Tracked>(2);
    }
    int alive = w.expired() ? 0 : w.lock()->id;
    return alive * 10 + live_objects;
}

int main() {
    int cleanups = 0;
    {
        ScopeGuard g([&] { ++cleanups; });
        ScopeGuard h([&] { cleanups += 10; });
        h.dismiss();
    }
    std::printf("%g %d %d\n", fill_and_sum(100), shared_demo(), cleanups);
    return 0;
}
