/* A nonlinear spring: k s^2 / 2 + s^4 / 4 (in libspring.a). */
double spring(double s, double k) { return 0.5 * k * s * s + 0.25 * s * s * s * s; }
double spring_derivative(double s, double k) { return k * s + s * s * s; }
