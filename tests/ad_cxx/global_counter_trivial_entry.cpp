// Differentiated functions that read and write globals (call counters, a last-value
// cache) and whose entry block is just the return (the derivative's first forward
// instruction is the `ret` that becomes the branch into the reverse pass).
#include "check.hpp"

long evaluations = 0;
int flags[2];
double last_input = 0.0;

double identity_counted(double x) {
  ++evaluations;
  return x;
}

double passthrough(double x) { return x; }

int last_flag = 0;
double flagged(double x) {
  last_flag = 1;  // a store of a constant that the derivative moves past its reverse pass
  return x;
}

double remember(double x) {
  last_input = 0.0;  // an inactive write to a double global
  flags[evaluations & 1] = 1;
  return x;
}

double scaled(double x, double s) {
  evaluations += 2;
  return s * x;
}

struct Model {
  static int uses;
  double k;
  double energy(double x) const {
    ++uses;
    return k * x * x;
  }
};
int Model::uses = 0;

double model_energy(const Model* m, double x) { return m->energy(x); }

int main() {
  check("id rev", __enzyme_autodiff((void*)identity_counted, 1.5), 1.0);
  check("id fwd", __enzyme_fwddiff((void*)identity_counted, 1.5, 2.0), 2.0);
  check("passthrough rev", __enzyme_autodiff((void*)passthrough, 0.25), 1.0);
  check("flagged rev", __enzyme_autodiff((void*)flagged, 0.25), 1.0);
  check("flagged fwd", __enzyme_fwddiff((void*)flagged, 0.25, 3.0), 3.0);
  check("remember rev", __enzyme_autodiff((void*)remember, -0.5), 1.0);
  check("remember fwd", __enzyme_fwddiff((void*)remember, -0.5, 1.0), 1.0);
  check("scaled rev", __enzyme_autodiff((void*)scaled, 2.0, enzyme_const, 3.0), 3.0);
  Model m{0.25};
  check("model rev", __enzyme_autodiff((void*)model_energy, enzyme_const, &m, 2.0), 1.0);
  check("model fwd", __enzyme_fwddiff((void*)model_energy, enzyme_const, &m, 2.0, 1.0), 1.0);
  if (evaluations != 4 || Model::uses != 2 || last_flag != 1) {
    std::printf("counters: %ld %d\n", evaluations, Model::uses);
    std::abort();
  }
  std::puts("OK");
}
