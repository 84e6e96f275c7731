; A product reduction taped per iteration (s is loop-carried and cannot be recomputed):
; 8 bytes per execution of a loop whose trip count is a run-time argument.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad --explain-ad -o /dev/null 2>&1 | %filecheck %s
; RUN: %irgrad opt %s -S -O0 --no-pre-ad -o /dev/null 2>&1 | %filecheck %s --check-prefix=QUIET --allow-empty

declare void @__enzyme_autodiff(ptr, ...)

define double @prod(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 1.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %vx = load double, ptr %px
  %s.next = fmul double %s, %vx
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret double %s.next
}

define void @grad(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @prod, ptr %x, ptr %dx, i64 %n)
  ret void
}
; CHECK: irgrad: explain: derivative diffe_prod of prod (reverse, combined)
; CHECK-NEXT: cached on the tape (1 values):
; CHECK-NEXT: %s = phi double [ 1.000000e+00, %entry ], [ %s.next, %loop ]
; CHECK-NEXT: 8 bytes per execution; loop at {{.*}} (trip count known at run time)
; CHECK: peak tape: 0 bytes + 8 bytes x iterations of the loop at
; QUIET-NOT: explain
