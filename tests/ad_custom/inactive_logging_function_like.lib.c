/* An "opaque library" (compiled natively; irgrad sees only the declarations): an event
 * log and a log1p of its own. */
#include <math.h>
#include <stdio.h>

static int events;

void lib_log_event(const char *tag, double value) {
  events++;
  if (events <= 2) fprintf(stderr, "[log] %s = %g\n", tag, value);
}

int lib_event_count(void) { return events; }

/* log(1 + x) by its argument-halving series, accurate for x > -1 */
double lib_log1p(double x) {
  double y = x / (2.0 + x), y2 = y * y, term = y, sum = 0.0;
  for (int k = 1; k < 60; k += 2) {
    sum += term / k;
    term *= y2;
  }
  return 2.0 * sum;
}
