/* lstm.h -- ADBench diagonal LSTM loss and its hand-written gradient. */
#ifndef ADBENCH_LSTM_H
#define ADBENCH_LSTM_H

/* main_params: 8*l*b, extra_params: 3*b, state: 2*l*b (copied, never written),
   sequence: c*b. */
void lstm_objective(int l, int c, int b, const double *main_params,
                    const double *extra_params, double *state, const double *sequence,
                    double *loss);

/* Analytic gradient: OVERWRITES d_main_params (8*l*b) and d_extra_params (3*b); also
   stores the loss in *loss. */
void lstm_objective_grad_manual(int l, int c, int b, const double *main_params,
                                const double *extra_params, const double *state,
                                const double *sequence, double *loss,
                                double *d_main_params, double *d_extra_params);

/* Enzyme-style gradient (lstm_grad_enzyme.c): ADDS into the shadows. */
void lstm_objective_grad_enzyme(int l, int c, int b, const double *main_params,
                                const double *extra_params, double *state,
                                const double *sequence, double *d_main_params,
                                double *d_extra_params);

#endif
