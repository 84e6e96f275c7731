; __enzyme_fwddiff of sin(): the tangent is cos(x) * dx. (At -O2 the unused primal sin()
; call survives only on LLVM's errno path for infinite x: sin may write errno.)
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s
; RUN: %irgrad opt %s -S -O2 | %filecheck %s --check-prefix=OPT

declare double @__enzyme_fwddiff(ptr, ...)
declare double @sin(double)

define double @f(double %x) {
entry:
  %s = call double @sin(double %x)
  ret double %s
}

define double @tangent(double %x, double %dx) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %t
}

; CHECK-LABEL: define internal double @fwddiffe_f(double %x, double %"'x")
; CHECK: %[[C:[0-9]+]] = call double @{{(llvm\.)?}}cos{{(\.f64)?}}(double %x)
; CHECK-NEXT: fmul double %[[C]], %"'x"
; CHECK-NEXT: ret double
; CHECK-LABEL: define double @tangent(double %x, double %dx)
; CHECK: call double @fwddiffe_f(double %x, double %dx)

; OPT-LABEL: define double @tangent(double %x, double %dx)
; OPT: %[[C:.+]] = {{.*}}call double @{{(llvm\.)?}}cos{{(\.f64)?}}(double %x)
; OPT: fmul double %[[C]], %dx
; OPT: ret double
