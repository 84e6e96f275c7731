; Reverse mode of fmul: the incoming adjoint times each other operand, two fmuls and
; nothing else; at -O2 the whole derivative folds into the caller (no call remains).
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s
; RUN: %irgrad opt %s -S -O2 | %filecheck %s --check-prefix=OPT

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

define { double, double } @grad(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define { double, double } @grad(double %x, double %y)
; CHECK: call { double, double } @diffe_f(double %x, double %y, double 1.000000e+00)
; CHECK-LABEL: define internal { double, double } @diffe_f(double %x, double %y, double %differeturn)
; CHECK: %m = fmul double %x, %y
; CHECK: fadd reassoc double %{{[0-9]+}}, %differeturn
; CHECK: %[[DM:[0-9]+]] = load double, ptr %[[SLOT:[^,]+]]
; CHECK-NEXT: store double -0.000000e+00, ptr %[[SLOT]]
; CHECK-NEXT: fmul double %[[DM]], %y
; CHECK: fmul double %[[DM]], %x
; CHECK-NOT: fmul
; CHECK: ret { double, double }

; OPT-LABEL: define { double, double } @grad(
; OPT-NOT: call
; OPT-NOT: fmul
; OPT: ret { double, double }
; OPT-NOT: @diffe_f
