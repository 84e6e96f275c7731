; Every ordinary instruction kind with its flags.
source_filename = "instructions.ll"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%struct.Pair = type { i32, double }
%struct.Opaque = type opaque
%struct.Packed = type <{ i8, i32 }>

@counter = global i32 0, align 4
@fptr = global ptr @callee, align 8

declare i32 @callee(i32 noundef, ptr noundef nonnull align 8 dereferenceable(16)) #0
declare i32 @printf(ptr noundef, ...)
declare void @llvm.dbg.placeholder()
declare double @llvm.fmuladd.f64(double, double, double)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define range(i32 0, 10) i32 @arith(i32 noundef %a, i32 %b, i64 %c) #1 {
entry:
  %add = add nsw i32 %a, %b
  %sub = sub nuw nsw i32 %add, 1
  %mul = mul i32 %sub, %a
  %udiv = udiv exact i32 %mul, 4
  %sdiv = sdiv i32 %udiv, -3
  %urem = urem i32 %sdiv, 7
  %srem = srem i32 %urem, 5
  %shl = shl nuw i32 %srem, 2
  %lshr = lshr exact i32 %shl, 1
  %ashr = ashr i32 %lshr, 1
  %and = and i32 %ashr, 255
  %or = or disjoint i32 %and, 256
  %xor = xor i32 %or, -1
  %t = trunc nuw nsw i64 %c to i32
  %z = zext nneg i32 %t to i64
  %s = sext i32 %xor to i64
  %cmp = icmp samesign ult i64 %z, %s
  %cmp2 = icmp eq i32 %a, 0
  %sel = select i1 %cmp, i32 %xor, i32 %t
  %fr = freeze i32 %sel
  ret i32 %fr
}

define double @floats(double %x, float %y, half %h, <4 x float> %v) {
  %1 = fadd fast double %x, 1.000000e+00
  %2 = fsub nnan ninf double %1, 0x7FF0000000000000
  %3 = fmul nsz arcp contract double %2, %x
  %4 = fdiv afn reassoc double %3, 2.500000e-01
  %5 = frem double %4, 3.000000e+00
  %6 = fneg nnan double %5
  %7 = fpext float %y to double
  %8 = fptrunc double %6 to float
  %9 = fcmp fast olt double %7, %6
  %10 = fcmp uno double %7, %6
  %11 = fptosi double %6 to i32
  %12 = fptoui double %6 to i64
  %13 = sitofp i32 %11 to double
  %14 = uitofp nneg i64 %12 to double
  %15 = fpext half %h to double
  %16 = fadd half %h, 0xH3C00
  %17 = call fast double @llvm.fmuladd.f64(double %13, double %14, double %15)
  %18 = select nnan i1 %9, double %17, double %13
  %19 = fadd <4 x float> %v, splat (float 1.000000e+00)
  %20 = fmul <4 x float> %19, <float 1.000000e+00, float 2.000000e+00, float 0x3FB99999A0000000, float 0.000000e+00>
  %21 = extractelement <4 x float> %20, i64 0
  %22 = insertelement <4 x float> %20, float %8, i32 1
  %23 = shufflevector <4 x float> %22, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %24 = shufflevector <4 x float> %23, <4 x float> undef, <2 x i32> zeroinitializer
  %25 = fcmp oeq <4 x float> %23, zeroinitializer
  ret double %18
}

define void @memory(ptr noalias %p, i64 %n, ptr %q) {
entry:
  %a = alloca i32, align 4
  %arr = alloca [10 x double], align 16
  %dyn = alloca double, i64 %n, align 8
  %pair = alloca %struct.Pair, align 8
  %vol = load volatile i32, ptr %a, align 4
  store i32 %vol, ptr %a, align 4
  store volatile double 1.500000e+00, ptr %dyn, align 8
  %g0 = getelementptr inbounds [10 x double], ptr %arr, i64 0, i64 3
  %g1 = getelementptr inbounds nuw %struct.Pair, ptr %pair, i64 0, i32 1
  %g2 = getelementptr nusw i8, ptr %p, i64 %n
  %g3 = getelementptr i8, ptr %p, i64 -8
  %gv = getelementptr double, ptr %p, <2 x i64> <i64 0, i64 1>
  %agg = load %struct.Pair, ptr %pair, align 8
  %ev = extractvalue %struct.Pair %agg, 1
  %iv = insertvalue %struct.Pair %agg, i32 7, 0
  %iv2 = insertvalue { i32, { double, ptr } } poison, ptr %p, 1, 1
  %ev2 = extractvalue { i32, { double, ptr } } %iv2, 1, 0
  %pi = ptrtoint ptr %p to i64
  %ip = inttoptr i64 %pi to ptr
  %as = addrspacecast ptr %ip to ptr addrspace(1)
  %bc = bitcast <2 x i32> <i32 1, i32 2> to i64
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %q, ptr align 8 %p, i64 %n, i1 false)
  store i32 0, ptr @counter, align 4
  ret void
}

define i32 @control(i32 %x, ptr %ap) {
entry:
  switch i32 %x, label %default [
    i32 0, label %zero
    i32 1, label %one
    i32 7, label %one
  ]

zero:
  br label %merge

one:
  %c = icmp sgt i32 %x, 3
  br i1 %c, label %merge, label %loop

loop:
  %i = phi i32 [ 0, %one ], [ %inc, %loop ]
  %inc = add i32 %i, 1
  %done = icmp eq i32 %inc, %x
  br i1 %done, label %merge, label %loop

default:
  %va = va_arg ptr %ap, i32
  %addr = select i1 true, ptr blockaddress(@control, %zero), ptr blockaddress(@control, %one)
  indirectbr ptr %addr, [label %zero, label %one]

merge:
  %r = phi i32 [ 1, %zero ], [ 2, %one ], [ %inc, %loop ]
  ret i32 %r
}

define i32 @calls(i32 %x, ptr %f) personality ptr @callee {
entry:
  %r0 = call i32 @callee(i32 noundef %x, ptr noundef nonnull align 8 dereferenceable(16) %f) #2
  %r1 = tail call i32 %f(i32 %x, ptr null)
  %r2 = musttail call i32 @callee(i32 %x, ptr %f)
  ret i32 %r2
}

define i32 @calls2(ptr %f, i32 %x) personality ptr @callee {
entry:
  %r1 = notail call fastcc i32 %f(i32 %x, ptr null) [ "deopt"(i32 1, ptr %f), "unknown"() ]
  %r3 = call i32 (ptr, ...) @printf(ptr @counter, i32 %x, double 1.000000e+00)
  %r4 = call cc 10 i32 @callee(i32 signext %x, ptr %f) nounwind
  call void asm sideeffect "nop", "~{dirflag},~{fpsr},~{flags}"()
  %asm = call i32 asm "movl $1, $0", "=r,r"(i32 %x)
  %r5 = invoke i32 @callee(i32 %x, ptr %f)
          to label %cont unwind label %lpad

cont:
  callbr void asm "", "r,!i"(i32 %x)
          to label %done [label %lpad2]

lpad2:
  br label %done

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr @counter
          filter [1 x ptr] [ptr @counter]
  resume { ptr, i32 } %lp

done:
  unreachable
}

attributes #0 = { nounwind "no-trapping-math"="true" }
attributes #1 = { noinline nounwind uwtable memory(argmem: readwrite) }
attributes #2 = { nounwind }
