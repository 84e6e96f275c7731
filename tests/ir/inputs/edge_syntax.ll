; Quoted labels and names, prefix/prologue data, alloca addrspace, scalable vectors.
%T = type { i32 }
@g = global i32 0
define i32 @f(i32 %x) prefix i32 123 prologue i8 144 {
"entry block":
  %a = alloca i32, align 4, addrspace(5)
  %"1x" = add i32 %x, 1
  br label %"next one"

"next one":
  %r = call addrspace(0) i32 @h(i32 %"1x")
  %v = call <vscale x 2 x i64> @sv(<vscale x 2 x i64> splat (i64 1), <vscale x 2 x i64> zeroinitializer)
  ret i32 %r
}
declare i32 @h(i32)
declare <vscale x 2 x i64> @sv(<vscale x 2 x i64>, <vscale x 2 x i64>)
define void @g2() {
  unreachable
}

define i32 @dashed_labels(i1 %c) {
entry:
  br i1 %c, label %loop.exit-lcssa, label %"$weird"

loop.exit-lcssa:
  ret i32 1

"$weird":
  ret i32 2
}
