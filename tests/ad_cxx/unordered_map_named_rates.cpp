// Reaction rates looked up by species name in a std::unordered_map<std::string, double>
// (hashing the names calls libstdc++'s std::_Hash_bytes, which has no IR and carries no
// derivative), updated in place with operator[], and a second table keyed by
// pair names built inside the function. Reverse and forward mode against central
// differences.
#include <string>
#include <unordered_map>
#include <vector>
#include "check.hpp"

double kinetics(const double* k, const double* c0, int steps) {
  std::unordered_map<std::string, double> rate{{"A->B", k[0]}, {"B->C", k[1]},
                                               {"C->A reverse channel", k[2]}};
  std::unordered_map<std::string, double> conc{{"A", c0[0]}, {"B", c0[1]}, {"C", c0[2]}};
  const double dt = 0.05;
  for (int s = 0; s < steps; ++s) {
    double ab = rate["A->B"] * conc["A"], bc = rate["B->C"] * conc["B"];
    double ca = rate["C->A reverse channel"] * conc["C"] * conc["C"];
    conc["A"] += dt * (ca - ab);
    conc["B"] += dt * (ab - bc);
    conc["C"] += dt * (bc - ca);
    rate["A->B"] *= 0.999;  // slow deactivation
  }
  return conc.at("A") * conc.at("A") + 2.0 * conc.at("B") + conc.at("C");
}

int main() {
  const double k[3] = {0.7, 0.4, 0.2}, c0[3] = {1.0, 0.5, 0.25};
  const int steps = 30;
  double dk[3] = {0, 0, 0}, dc[3] = {0, 0, 0};
  __enzyme_autodiff((void*)kinetics, enzyme_dup, k, dk, enzyme_dup, c0, dc, enzyme_const,
                    steps);
  const double h = 1e-6;
  double kk[3] = {k[0], k[1], k[2]}, cc[3] = {c0[0], c0[1], c0[2]};
  double dir = 0.0;
  for (int i = 0; i < 3; ++i) {
    kk[i] = k[i] + h;
    double fp = kinetics(kk, c0, steps);
    kk[i] = k[i] - h;
    double fm = kinetics(kk, c0, steps);
    kk[i] = k[i];
    check("dk", dk[i], (fp - fm) / (2 * h), 1e-6);
    dir += (fp - fm) / (2 * h);
    cc[i] = c0[i] + h;
    fp = kinetics(k, cc, steps);
    cc[i] = c0[i] - h;
    fm = kinetics(k, cc, steps);
    cc[i] = c0[i];
    check("dc", dc[i], (fp - fm) / (2 * h), 1e-6);
  }
  double tk[3] = {1.0, 1.0, 1.0}, tc[3] = {0.0, 0.0, 0.0};
  double tan = __enzyme_fwddiff((void*)kinetics, enzyme_dup, k, tk, enzyme_dup, c0, tc,
                                enzyme_const, steps);
  check("tangent", tan, dir, 1e-6);
  std::printf("OK\n");
  return 0;
}
