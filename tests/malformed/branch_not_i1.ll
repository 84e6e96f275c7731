; EXPECT: 4:6: error: branch condition must have 'i1' type
define void @f(i32 %c) {
entry:
  br i32 %c, label %entry, label %entry
}
