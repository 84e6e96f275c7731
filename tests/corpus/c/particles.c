/* Arrays of structs: a small gravitational N-body step. */
#include <math.h>
#include <stdio.h>

typedef struct {
    double x, y, z;
} vec3;

typedef struct {
    vec3 pos, vel, acc;
    double mass;
    int id;
} particle;

static vec3 vsub(vec3 a, vec3 b) { return (vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

void compute_forces(particle *ps, int n, double soft) {
    for (int i = 0; i < n; ++i)
        ps[i].acc = (vec3){0, 0, 0};
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            vec3 d = vsub(ps[j].pos, ps[i].pos);
            double r2 = vdot(d, d) + soft * soft;
            double inv = 1.0 / (r2 * sqrt(r2));
            ps[i].acc.x += d.x * ps[j].mass * inv;
            ps[i].acc.y += d.y * ps[j].mass * inv;
            ps[i].acc.z += d.z * ps[j].mass * inv;
            ps[j].acc.x -= d.x * ps[i].mass * inv;
            ps[j].acc.y -= d.y * ps[i].mass * inv;
            ps[j].acc.z -= d.z * ps[i].mass * inv;
        }
}

double step(particle *ps, int n, double dt) {
    compute_forces(ps, n, 1e-3);
    double ke = 0.0;
    for (int i = 0; i < n; ++i) {
        particle *p = &ps[i];
        p->vel.x += p->acc.x * dt;
        p->vel.y += p->acc.y * dt;
        p->vel.z += p->acc.z * dt;
        p->pos.x += p->vel.x * dt;
        p->pos.y += p->vel.y * dt;
        p->pos.z += p->vel.z * dt;
        ke += 0.5 * p->mass * vdot(p->vel, p->vel);
    }
    return ke;
}

int main(void) {
    particle ps[4];
    for (int i = 0; i < 4; ++i)
        ps[i] = (particle){{i, i * 0.5, -i}, {0, 0, 0}, {0, 0, 0}, 1.0 + i, i};
    double e = 0;
    for (int s = 0; s < 10; ++s)
        e = step(ps, 4, 0.01);
    printf("ke=%g id=%d\n", e, ps[3].id);
    return 0;
}
