; EXPECT: 3:8: error: expected instruction opcode, found 'fadd2'
define double @f(double %a) {
  %r = fadd2 double %a, %a
  ret double %r
}
