; Reverse mode of pow(x, y): d/dx = y * pow(x, y - 1) and d/dy = pow(x, y) * log(x), each
; guarded by a select so y == 0 (resp. x == 0) gives 0 instead of NaN; d/dy reuses the
; primal result %r.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare double @pow(double, double)

define double @p(double %x, double %y) {
entry:
  %r = call double @pow(double %x, double %y)
  ret double %r
}

define { double, double } @grad(double %x, double %y) {
entry:
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @p, double %x, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define internal { double, double } @diffe_p(double %x, double %y, double %differeturn)
; CHECK: %r = call double @pow(double %x, double %y)
; CHECK: %[[YZ:[0-9]+]] = fcmp oeq double %y, 0.000000e+00
; CHECK: %[[YM1:[0-9]+]] = fsub double %y, 1.000000e+00
; CHECK: %[[PW:[0-9]+]] = call double @{{(llvm\.)?}}pow{{(\.f64)?}}(double %x, double %[[YM1]])
; CHECK: %[[DX:[0-9]+]] = fmul double %y, %[[PW]]
; CHECK: select i1 %[[YZ]], double 0.000000e+00, double %[[DX]]
; CHECK: %[[XZ:[0-9]+]] = fcmp oeq double %x, 0.000000e+00
; CHECK: %[[LG:[0-9]+]] = call double @{{(llvm\.)?}}log{{(\.f64)?}}(double %x)
; CHECK: %[[DY:[0-9]+]] = fmul double %r, %[[LG]]
; CHECK: select i1 %[[XZ]], double 0.000000e+00, double %[[DY]]
; CHECK: ret { double, double }
