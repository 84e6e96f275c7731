; Type analysis of a struct copy: the memcpy gives the source the destination's layout,
; TBAA types the loads, the integer field stays Integer.
; RUN: %irgrad opt %s --no-pre-ad --print-type-analysis=g -o /dev/null | %filecheck %s

define double @g(ptr %out, ptr %in) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %out, ptr align 8 %in, i64 24, i1 false)
  %a = load double, ptr %out, align 8, !tbaa !1
  %pb = getelementptr inbounds i8, ptr %out, i64 8
  %b = load double, ptr %pb, align 8, !tbaa !1
  %pn = getelementptr inbounds i8, ptr %out, i64 16
  %n = load i64, ptr %pn, align 8, !tbaa !5
  %nf = sitofp i64 %n to double
  %s = fadd double %a, %b
  %r = fadd double %s, %nf
  ret double %r
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

!1 = !{!2, !2, i64 0}
!2 = !{!"double", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}
!5 = !{!6, !6, i64 0}
!6 = !{!"long", !3, i64 0}

; CHECK: g - {[-1]:Float@double} |{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double, [-1,16]:Integer}:{} {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double, [-1,16]:Integer}:{}
; CHECK-NEXT: ptr %out: {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double, [-1,16]:Integer}
; CHECK-NEXT: ptr %in: {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double, [-1,16]:Integer}
; CHECK-NEXT: entry
; CHECK-NEXT:   call void @llvm.memcpy.p0.p0.i64(ptr align 8 %out, ptr align 8 %in, i64 24, i1 false): {}
; CHECK-NEXT:   %a = load double, ptr %out, align 8, !tbaa !{{[0-9]+}}: {[-1]:Float@double}
; CHECK-NEXT:   %pb = getelementptr inbounds i8, ptr %out, i64 8: {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:   %b = load double, ptr %pb, align 8, !tbaa !{{[0-9]+}}: {[-1]:Float@double}
; CHECK-NEXT:   %pn = getelementptr inbounds i8, ptr %out, i64 16: {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:   %n = load i64, ptr %pn, align 8, !tbaa !{{[0-9]+}}: {[-1]:Integer}
; CHECK-NEXT:   %nf = sitofp i64 %n to double: {[-1]:Float@double}
