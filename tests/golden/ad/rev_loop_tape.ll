; A product reduction s = s * x[i]: the loop-carried s cannot be recomputed in the reverse
; pass, so the forward loop pushes it on a tape, the reverse loop pops it (running the
; counter down to 0) and multiplies the adjoint by it for dx[i]; x[i] itself is loaded
; again, not taped. At the end of the reverse pass the tape is released: a heap tape goes
; into the module's cache for the next call (an atomic swap; the one it replaces is freed).
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
declare void @__enzyme_autodiff(ptr, ...)

define double @f(ptr %x, i64 %n) {
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
entry:
  %d = load i32, ptr @enzyme_dup
  %c = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx, i32 %c, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @diffe_f(ptr %x, ptr %dx, i64 %n, double %differeturn)
; CHECK: loop:
; CHECK-NOT: store double %vx
; CHECK: %[[FS:[0-9]+]] = getelementptr i8, ptr %{{.+}}, i64 [[OFF:[0-9]+]]
; CHECK-NEXT: store double %s, ptr %[[FS]]
; CHECK: br i1 %done, label %exit, label %loop
; CHECK: rev.loop{{.*}}:
; CHECK: %[[RS:[0-9]+]] = getelementptr i8, ptr %{{.+}}, i64 [[OFF]]
; CHECK-NEXT: %[[S:.+]] = load double, ptr %[[RS]]
; CHECK: fmul double %{{[0-9]+}}, %[[S]]
; CHECK: icmp eq i64 %[[C:.+]], 0
; CHECK-NEXT: sub i64 %[[C]], 1
; CHECK: atomicrmw xchg ptr @__irgrad_tape_cache, ptr %{{.+}} seq_cst
; CHECK: call void @free(ptr
