// EXPECT-ERROR: has no definition in this module
// __enzyme_virtualreverse of a function irgrad cannot see: its table of derivatives
// cannot exist.
void *__enzyme_virtualreverse(void *);
double sensor_model(double x); /* defined in a prebuilt library */
struct model { double (*f)(double); };
int main(void) {
  struct model d;
  d.f = (double (*)(double))__enzyme_virtualreverse((void *)sensor_model); // ERROR-LINE
  return d.f != 0;
}
