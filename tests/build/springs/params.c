/* Parameters of the chain (a third translation unit). */
double stiffness(int i) { return 1.5 + 0.25 * i; }
double rest_length(void) { return 0.8; }
