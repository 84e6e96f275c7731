; EXPECT: 6:16: error: expected '[' in phi value list
define i32 @f(i1 %c) {
entry:
  br label %next
next:
  %p = phi i32 0, %entry
  ret i32 %p
}
