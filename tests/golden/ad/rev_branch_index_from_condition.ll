; An if/else: the reverse pass tells which predecessor reached the join from the branch
; condition (%c, still available) instead of a recorded index: no predecessor phi in the
; forward pass; it switches on `select %c` and sends the adjoint of %r to the branch that
; ran: x*x gives two products with x, x*3 one product with 3.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

declare double @__enzyme_autodiff(ptr, ...)

define double @f(double %x) {
entry:
  %c = fcmp ogt double %x, 0.0
  br i1 %c, label %pos, label %neg

pos:
  %a = fmul double %x, %x
  br label %join

neg:
  %b = fmul double %x, 3.0
  br label %join

join:
  %r = phi double [ %a, %pos ], [ %b, %neg ]
  ret double %r
}

define double @grad(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; CHECK-LABEL: define internal { double } @diffe_f(double %x, double %differeturn)
; CHECK: join:
; CHECK-NOT: phi i32
; CHECK: %[[PRED:.+]] = select i1 %c, i32 0, i32 1
; CHECK-NEXT: switch i{{[0-9]+}} %[[PRED]], label %[[E0:.+]] [
; CHECK-NEXT: i{{[0-9]+}} 1, label %[[E1:.+]]
; CHECK-DAG: fmul double %{{[0-9]+}}, 3.000000e+00
; CHECK-DAG: fmul double %[[DA:[0-9]+]], %x
; CHECK-DAG: fmul double %[[DA]], %x
; CHECK: ret { double }
