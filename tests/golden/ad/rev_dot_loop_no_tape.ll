; Gradient of a dot product with x active and y constant: the reverse loop runs the
; induction variable down from the last iteration to 0 (a counter set from the trip count),
; and y[i] is loaded again in the reverse pass (nothing writes y), so no tape is allocated.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s
; RUN: %irgrad opt %s -S -O2 | %filecheck %s --check-prefix=OPT

@enzyme_dup = external global i32
@enzyme_const = external global i32
declare void @__enzyme_autodiff(ptr, ...)

define double @dot(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %vx = load double, ptr %px
  %vy = load double, ptr %py
  %m = fmul double %vx, %vy
  %s.next = fadd double %s, %m
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret double %s.next
}

define void @grad_dot(ptr %x, ptr %dx, ptr %y, i64 %n) {
entry:
  %d = load i32, ptr @enzyme_dup
  %c = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @dot, i32 %d, ptr %x, ptr %dx, i32 %c, ptr %y, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @diffe_dot(ptr %x, ptr %dx, ptr %y, i64 %n, double %differeturn)
; CHECK: loop:
; CHECK: %vy = load double, ptr %py
; the trip count is recomputed from n at the exit (nothing recorded per iteration)
; CHECK: sub i64 %n, 0
; CHECK: store i64 %{{[^,]+}}, ptr %[[COUNTER:[^,]+]]
; CHECK: rev.loop{{.*}}:
; CHECK-NEXT: %[[I:.+]] = load i64, ptr %[[COUNTER]]
; CHECK-NEXT: %[[PY:.+]] = getelementptr inbounds double, ptr %y, i64 %[[I]]
; CHECK-NEXT: %[[VY:.+]] = load double, ptr %[[PY]]
; CHECK: fmul double %{{[0-9]+}}, %[[VY]]
; CHECK: %[[C:.+]] = load i64, ptr %[[COUNTER]]
; CHECK-NEXT: icmp eq i64 %[[C]], 0
; CHECK-NEXT: sub i64 %[[C]], 1
; CHECK: ret void
; CHECK-NOT: @malloc
; CHECK-NOT: @realloc

; OPT-LABEL: define void @grad_dot(
; OPT-NOT: alloc
; OPT: ret void
; OPT-NOT: @malloc
; OPT-NOT: @realloc
