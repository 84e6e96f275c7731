; clang copies doubles through i64: TBAA "double" on the integer load types it as a float,
; and the store passes the fact on to the destination.
; RUN: %irgrad opt %s --no-pre-ad --print-type-analysis=h -o /dev/null | %filecheck %s

define void @h(ptr %dst, ptr %src) {
entry:
  %t = load i64, ptr %src, align 8, !tbaa !1
  store i64 %t, ptr %dst, align 8
  ret void
}

!1 = !{!2, !2, i64 0}
!2 = !{!"double", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}

; CHECK: h - {} |{[-1]:Pointer, [-1,0]:Float@double}:{} {[-1]:Pointer, [-1,0]:Float@double}:{}
; CHECK-NEXT: ptr %dst: {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT: ptr %src: {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT: entry
; CHECK-NEXT:   %t = load i64, ptr %src, align 8, !tbaa !{{[0-9]+}}: {[-1]:Float@double}
; CHECK-NEXT:   store i64 %t, ptr %dst, align 8: {}
; CHECK-NEXT:   ret void: {}
