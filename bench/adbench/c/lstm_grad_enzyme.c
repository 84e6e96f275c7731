/* lstm_grad_enzyme.c -- LSTM gradient by reverse-mode AD of lstm_objective through
   Enzyme's C API. The state is constant (lstm_objective copies it); one reverse sweep
   seeded with d_loss = 1 ADDS the gradient into d_main_params and d_extra_params. */
#include <enzyme/enzyme.h>

#include "lstm.h"

void lstm_objective_grad_enzyme(int l, int c, int b, const double *main_params,
                                const double *extra_params, double *state,
                                const double *sequence, double *d_main_params,
                                double *d_extra_params)
{
    double loss = 0.0;
    double d_loss = 1.0;
    __enzyme_autodiff((void *)lstm_objective,
                      enzyme_const, l, enzyme_const, c, enzyme_const, b,
                      enzyme_dup, main_params, d_main_params,
                      enzyme_dup, extra_params, d_extra_params,
                      enzyme_const, state,
                      enzyme_const, sequence,
                      enzyme_dupnoneed, &loss, &d_loss);
}
