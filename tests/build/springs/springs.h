#pragma once
#define N_MASSES 5
/* energy.c */
double chain_energy(const double *x, int n);
double chain_energy_gradient_exact(const double *x, int n, int i);
/* params.c */
double stiffness(int i);
double rest_length(void);
/* lib/spring.c (libspring.a) */
double spring(double stretch, double k);
double spring_derivative(double stretch, double k);
