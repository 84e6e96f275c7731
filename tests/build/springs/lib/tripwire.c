/* A member no one needs: a linker leaves it out. Linked in anyway, its constructor
   would end the program, so the program's exit status shows that only the members a
   linker takes went into the link. */
#include <stdio.h>
#include <stdlib.h>

double tripwire_unused(double x) { return x * 3.0; }

__attribute__((constructor)) static void tripwire(void) {
  fputs("tripwire: libspring.a(tripwire.o) was linked although nothing needs it\n", stderr);
  exit(3);
}
