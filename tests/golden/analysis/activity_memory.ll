; Activity through memory: an alloca holding an active value is active, one holding a
; constant is not; a value that only reaches printf is inactive.
; RUN: %irgrad opt %s --no-pre-ad --print-activity=f -o /dev/null | %filecheck %s

@.fmt = private unnamed_addr constant [4 x i8] c"%f\0A\00", align 1

define double @f(double %x, double %c) {
entry:
  %a = alloca double, align 8
  %b = alloca double, align 8
  store double %x, ptr %a, align 8
  store double 2.000000e+00, ptr %b, align 8
  %la = load double, ptr %a, align 8
  %lb = load double, ptr %b, align 8
  %cc = fmul double %c, %c
  %pr = call i32 (ptr, ...) @printf(ptr @.fmt, double %cc)
  %m = fmul double %la, %lb
  ret double %m
}

declare i32 @printf(ptr, ...)

; CHECK: double %x: icv:0
; CHECK-NEXT: double %c: icv:0
; CHECK-NEXT: entry
; CHECK-NEXT:   %a = alloca double, align 8: icv:0 ici:0
; CHECK-NEXT:   %b = alloca double, align 8: icv:1 ici:1
; CHECK-NEXT:   store double %x, ptr %a, align 8: icv:1 ici:0
; CHECK-NEXT:   store double 2.000000e+00, ptr %b, align 8: icv:1 ici:1
; CHECK-NEXT:   %la = load double, ptr %a, align 8: icv:0 ici:0
; CHECK-NEXT:   %lb = load double, ptr %b, align 8: icv:1 ici:1
; CHECK-NEXT:   %cc = fmul double %c, %c: icv:1 ici:1
; CHECK-NEXT:   %pr = call i32 (ptr, ...) @printf(ptr @.fmt, double %cc): icv:1 ici:1
; CHECK-NEXT:   %m = fmul double %la, %lb: icv:0 ici:0
