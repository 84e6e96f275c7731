/* Compiled to native code (not IR): hands out a model whose callback is a function of
   the differentiated program. irgrad sees the callback only through this pointer. */
struct model {
  double (*f)(double x, const double *p);
  const double *p;
};
double cubic(double x, const double *p);
static const double params[2] = {0.5, 2.0};
static struct model the_model = {cubic, params};
struct model *plugin_model(void) { return &the_model; }
