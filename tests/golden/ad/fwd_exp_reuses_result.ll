; __enzyme_fwddiff of exp(): exp' = exp, so the tangent multiplies the primal result; exp
; is called once, not twice.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @exp(double)

define double @g(double %x) {
entry:
  %e = call double @exp(double %x)
  ret double %e
}

define double @tangent(double %x, double %dx) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx)
  ret double %t
}

; CHECK-LABEL: define internal double @fwddiffe_g(double %x, double %"'x")
; CHECK: %e = call double @exp(double %x)
; CHECK-NOT: exp
; CHECK: fmul double %e, %"'x"
; CHECK-NOT: exp
; CHECK: ret double
