; A dot product: nothing needs a tape (x and y are re-read, the counter is recomputed), so
; the report says so; `irgrad opt --explain-ad` writes it to stderr and the IR to stdout.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad --explain-ad -o /dev/null 2>&1 | %filecheck %s

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

define void @grad(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @dot, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret void
}
; CHECK: irgrad: explain: derivative diffe_dot of dot (reverse, combined)
; CHECK-NEXT: tape: none (every value the reverse pass needs is still available, recomputed or re-read)
; CHECK-NEXT: recomputed in the reverse pass
; CHECK-DAG: %vx = load double, ptr %px
; CHECK-DAG: %vy = load double, ptr %py
; CHECK-DAG: %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
; CHECK-DAG: a loop counter: recomputed from the reverse loop's counter
; CHECK: peak tape: 0 bytes
