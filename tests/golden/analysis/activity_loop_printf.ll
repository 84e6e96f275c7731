; Activity of a typical C kernel: index math and printf are inactive, the loaded values,
; the libm call and the sum are active.
; RUN: %irgrad opt %s --no-pre-ad --print-activity=f -o /dev/null | %filecheck %s

@.str = private unnamed_addr constant [7 x i8] c"%f %d\0A\00", align 1

define double @f(ptr %x, i32 %n, double %y) {
entry:
  %cmp = icmp sgt i32 %n, 0
  br i1 %cmp, label %for.body.preheader, label %exit

for.body.preheader:
  %wide = zext nneg i32 %n to i64
  br label %for.body

for.body:
  %iv = phi i64 [ 0, %for.body.preheader ], [ %iv.next, %for.body ]
  %s = phi double [ 0.000000e+00, %for.body.preheader ], [ %add, %for.body ]
  %p = getelementptr inbounds double, ptr %x, i64 %iv
  %v = load double, ptr %p, align 8
  %sin = call double @sin(double %v)
  %add = call double @llvm.fmuladd.f64(double %sin, double %y, double %s)
  %iv.next = add nuw nsw i64 %iv, 1
  %done = icmp eq i64 %iv.next, %wide
  br i1 %done, label %exit, label %for.body

exit:
  %r = phi double [ 0.000000e+00, %entry ], [ %add, %for.body ]
  %call = call i32 (ptr, ...) @printf(ptr @.str, double %r, i32 %n)
  ret double %r
}

declare double @sin(double)
declare double @llvm.fmuladd.f64(double, double, double)
declare i32 @printf(ptr, ...)

; CHECK: ptr %x: icv:0
; CHECK-NEXT: i32 %n: icv:1
; CHECK-NEXT: double %y: icv:0
; CHECK-NEXT: entry
; CHECK-NEXT:   %cmp = icmp sgt i32 %n, 0: icv:1 ici:1
; CHECK: {{^}}for.body.preheader{{$}}
; CHECK-NEXT:   %wide = zext nneg i32 %n to i64: icv:1 ici:1
; CHECK: {{^}}for.body{{$}}
; CHECK-NEXT:   %iv = phi i64 [ 0, %for.body.preheader ], [ %iv.next, %for.body ]: icv:1 ici:1
; CHECK-NEXT:   %s = phi double [ 0.000000e+00, %for.body.preheader ], [ %add, %for.body ]: icv:0 ici:0
; CHECK-NEXT:   %p = getelementptr inbounds double, ptr %x, i64 %iv: icv:0 ici:0
; CHECK-NEXT:   %v = load double, ptr %p, align 8: icv:0 ici:0
; CHECK-NEXT:   %sin = call double @sin(double %v): icv:0 ici:0
; CHECK-NEXT:   %add = call double @llvm.fmuladd.f64(double %sin, double %y, double %s): icv:0 ici:0
; CHECK-NEXT:   %iv.next = add nuw nsw i64 %iv, 1: icv:1 ici:1
; CHECK-NEXT:   %done = icmp eq i64 %iv.next, %wide: icv:1 ici:1
; CHECK: {{^}}exit{{$}}
; CHECK-NEXT:   %r = phi double [ 0.000000e+00, %entry ], [ %add, %for.body ]: icv:0 ici:0
; CHECK-NEXT:   %call = call i32 (ptr, ...) @printf(ptr @.str, double %r, i32 %n): icv:1 ici:1
; CHECK-NEXT:   ret double %r: icv:1 ici:1
