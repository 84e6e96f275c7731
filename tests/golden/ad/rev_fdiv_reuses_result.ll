; Reverse mode of fdiv: d/dx = dret * (1 / y) and d/dy = -(dret * (r * (1 / y))), reusing
; the primal quotient %r instead of recomputing x / y**2, and one reciprocal for both.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @q(double %x, double %y) {
entry:
  %r = fdiv double %x, %y
  ret double %r
}

define { double, double } @grad(double %x, double %y) {
entry:
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @q, double %x, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define internal { double, double } @diffe_q(double %x, double %y, double %differeturn)
; CHECK: %r = fdiv double %x, %y
; CHECK: fadd reassoc double %{{[0-9]+}}, %differeturn
; CHECK: %[[D:[0-9]+]] = load double, ptr %[[SLOT:[^,]+]]
; CHECK-NEXT: store double -0.000000e+00, ptr %[[SLOT]]
; CHECK: %[[INV:[0-9]+]] = fdiv double 1.000000e+00, %y
; CHECK-NEXT: fmul double %[[D]], %[[INV]]
; CHECK: %[[INV2:[0-9]+]] = fdiv double 1.000000e+00, %y
; CHECK-NEXT: %[[RY:[0-9]+]] = fmul double %r, %[[INV2]]
; CHECK-NEXT: %[[T:[0-9]+]] = fmul double %[[D]], %[[RY]]
; CHECK-NEXT: fneg double %[[T]]
; CHECK-NOT: fmul double %y, %y
; CHECK: ret { double, double }
