/* Shared by the Enzyme-API programs: each declares the entry points and markers it uses
   itself (as Enzyme's own tests do) and checks its numbers with CHECK, which prints both
   sides and aborts on a mismatch (relative tolerance). */
#ifndef API_PROGRAMS_CHECK_H
#define API_PROGRAMS_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(got, want, tol)                                                         \
  do {                                                                                \
    double got_ = (got), want_ = (want);                                              \
    if (!(fabs(got_ - want_) <= (tol) * (1.0 + fabs(want_)))) {                       \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g\n", __FILE__, __LINE__, \
              #got, got_, #want, want_);                                              \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

#endif
