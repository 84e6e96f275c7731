// Virtual functions, abstract base classes, dynamic dispatch, dynamic_cast.
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual double perimeter() const = 0;
    virtual const char *name() const { return "shape"; }
};

class Circle : public Shape {
    double r_;
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override { return M_PI * r_ * r_; }
    double perimeter() const override { return 2 * M_PI * r_; }
    const char *name() const override { return "circle"; }
    double radius() const { return r_; }
};

class Rect : public Shape {
protected:
    double w_, h_;
public:
    Rect(double w, double h) : w_(w), h_(h) {}
    double area() const override { return w_ * h_; }
    double perimeter() const override { return 2 * (w_ + h_); }
    const char *name() const override { return "rect"; }
};

class Square final : public Rect {
public:
    explicit Square(double s) : Rect(s, s) {}
    const char *name() const override { return "square"; }
};

double total_area(const std::vector<std::unique_ptr<Shape>> &shapes) {
    double s = 0;
    for (const auto &sh : shapes)
        s += sh->area();
    return s;
}

double sum_radii(const std::vector<std::unique_ptr<Shape>> &shapes) {
    double s = 0;
    for (const auto &sh : shapes)
        if (auto *c = dynamic_cast<const Circle *>(sh.get()))
            s += c->radius();
    return s;
}

int main() {
    std::vector<std::unique_ptr<Shape>> v;
    v.push_back(std::make_unique<Circle>(1.0));
    v.push_back(std::make_unique<Rect>(2.0, 3.0));
    v.push_back(std::make_unique<Square>(1.5));
    for (const auto &s : v)
        std::printf("%s %.3f %.3f\n", s->name(), s->area(), s->perimeter());
    std::printf("total %.3f radii %.3f\n", total_area(v), sum_radii(v));
    return 0;
}
