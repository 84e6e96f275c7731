; Vector forward mode (width 4): the shadow of a buffer the function allocates itself is
; ONE interleaved allocation (the 4 tangents of element i side by side at [i][0..3]), so a
; tangent load is a single <4 x double> load and the callee that fills the buffer takes
; one shadow pointer for it, not four. The user's shadows (%x, %y) keep Enzyme's layout:
; four separate pointers. The buffer %t2 receives a memcpy from %x, which the
; interleaved layout does not admit: it keeps four shadows.
; RUN: %irgrad opt %s -S -O0 --no-pre-ad | %filecheck %s

declare void @__enzyme_fwddiff(ptr, ...)
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
@enzyme_width = external global i32
@enzyme_dup = external global i32
@enzyme_dupnoneed = external global i32

define internal void @fill(ptr %buf, ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xv = load double, ptr %px, align 8
  %sq = fmul double %xv, %xv
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %sq, ptr %pb, align 8
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define void @f(ptr %x, ptr %y, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %t = call ptr @malloc(i64 %bytes)
  call void @fill(ptr %t, ptr %x, i64 %n)
  %t2 = call ptr @malloc(i64 %bytes)
  call void @llvm.memcpy.p0.p0.i64(ptr %t2, ptr %x, i64 %bytes, i1 false)
  %p1 = getelementptr inbounds i8, ptr %t, i64 8
  %v1 = load double, ptr %p1, align 8
  %q1 = getelementptr inbounds i8, ptr %t2, i64 8
  %w1 = load double, ptr %q1, align 8
  %s = fmul double %v1, %w1
  store double %s, ptr %y, align 8
  call void @free(ptr %t2)
  call void @free(ptr %t)
  ret void
}

define void @jvp4(ptr %x, ptr %dx0, ptr %dx1, ptr %dx2, ptr %dx3, ptr %y, ptr %dy0,
                  ptr %dy1, ptr %dy2, ptr %dy3, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr @enzyme_width, i64 4,
      ptr @enzyme_dup, ptr %x, ptr %dx0, ptr %dx1, ptr %dx2, ptr %dx3,
      ptr @enzyme_dupnoneed, ptr %y, ptr %dy0, ptr %dy1, ptr %dy2, ptr %dy3, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffe4_fill(ptr %buf, ptr %"'buf", ptr %x, ptr %"'x0", ptr %"'x1", ptr %"'x2", ptr %"'x3", i64 %n)
; CHECK: %"'pb" = getelementptr inbounds [4 x double], ptr %"'buf", i64 %i
; CHECK: store <4 x double> %{{.*}}, ptr %"'pb", align 8
; CHECK-LABEL: define internal void @fwddiffe4_f(ptr %x, ptr %"'x0", ptr %"'x1", ptr %"'x2", ptr %"'x3", ptr %y, ptr %"'y0", ptr %"'y1", ptr %"'y2", ptr %"'y3", i64 %n)
; CHECK: %t = call ptr @malloc(i64 %bytes)
; CHECK-NEXT: [[SIZE:%.*]] = mul i64 %bytes, 4
; CHECK-NEXT: %"'t" = call ptr @malloc(i64 [[SIZE]])
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %"'t", i8 0, i64 [[SIZE]]
; CHECK: call void @fwddiffe4_fill(ptr %t, ptr %"'t", ptr %x, ptr %"'x0", ptr %"'x1", ptr %"'x2", ptr %"'x3", i64 %n)
; the memcpy'd buffer: four shadows, four copies; one vector load of t[1]'s four tangents
; CHECK-COUNT-5: call void @llvm.memcpy.p0.p0.i64
; CHECK: %"'p1" = getelementptr inbounds [4 x i8], ptr %"'t", i64 8
; CHECK: %"'v1" = load <4 x double>, ptr %"'p1", align 8
; CHECK: call void @free(ptr %"'t")
