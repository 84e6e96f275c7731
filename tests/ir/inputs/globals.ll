; Globals, aliases, ifuncs, comdats, module asm, constants and constant expressions.
source_filename = "globals.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

module asm ".globl asm_sym"
module asm "asm_sym: ret"

%struct.S = type { i32, [2 x float], ptr }
%"struct.odd name" = type { i8 }
%struct.T = type { %struct.S, <2 x double> }

$cd = comdat any
$other = comdat largest
$owncd = comdat any

@str = private unnamed_addr constant [13 x i8] c"hello \22x\22 \0A\00\00", align 1
@arr = dso_local global [3 x i32] [i32 1, i32 -2, i32 3], align 4
@zero = internal global [4 x double] zeroinitializer, align 16
@s = global %struct.S { i32 5, [2 x float] [float 1.000000e+00, float 0x36A0000000000000], ptr @arr }, align 8
@t = global %struct.T { %struct.S zeroinitializer, <2 x double> <double 1.000000e+00, double -0.000000e+00> }
@packed = global <{ i8, i32 }> <{ i8 1, i32 2 }>, align 1
@vec = global <4 x i32> splat (i32 7)
@ptrs = global [2 x ptr] [ptr getelementptr inbounds (i8, ptr @arr, i64 4), ptr getelementptr inbounds nuw ([3 x i32], ptr @arr, i64 0, i64 2)]
@pi = global i64 ptrtoint (ptr @arr to i64)
@diff = global i64 sub (i64 ptrtoint (ptr @s to i64), i64 ptrtoint (ptr @arr to i64))
@ip = global ptr inttoptr (i64 4096 to ptr)
@hx = global i64 u0xFF, align 8
@big = global i128 -170141183460469231731687303715884105728
@ld = global x86_fp80 0xK3FFF8000000000000000, align 16
@q = global fp128 0xL00000000000000003FFF000000000000, align 16
@bf = global bfloat 0xR3F80
@hf = global half 0xH3C00
@t1 = global i1 true
@und = global i32 undef
@poi = global ptr poison
@nul = global ptr null
@ext = external global i32, align 4
@extw = extern_weak global i32
@tls = thread_local(initialexec) global i32 0, align 4
@tls2 = internal thread_local global i32 1
@hid = hidden global i32 0
@prot = protected constant i32 1
@dlli = external dllimport global i32
@sect = global i32 3, section ".mydata", align 4
@withcd = linkonce_odr global i32 1, comdat($cd), align 4
@owncd = weak_odr global i32 2, comdat
@other = global i32 3, comdat
@asp = addrspace(1) global i32 4
@lun = internal local_unnamed_addr global i32 5
@ei = externally_initialized global i32 0
@"quoted name" = global i32 0
@withmd = global i32 0, !foo !0
@ba = global ptr blockaddress(@fn, %target)
@dle = global ptr dso_local_equivalent @fn
@nocfi = global ptr no_cfi @fn
@fnptr = global ptr @later

@alias = alias i32, ptr @arr
@alias2 = internal alias [3 x i32], ptr getelementptr inbounds (i8, ptr @arr, i64 0)
@ifn = ifunc void (), ptr @resolver

define internal ptr @resolver() {
  ret ptr @fn
}

define void @fn() {
entry:
  br label %target

target:
  %x = load i32, ptr @"quoted name", align 4
  %"odd local" = add i32 %x, 1
  store i32 %"odd local", ptr @alias, align 4
  ret void
}

define linkonce_odr hidden void @later() section ".text.later" comdat($cd) align 16 {
  ret void
}

!0 = !{!"some metadata", i32 42}
