; EXPECT: 4:16: error: '%x' defined with type 'i32' but expected 'i64'
define i64 @f(i32 %a) {
  %x = add i32 %a, 1
  %y = add i64 %x, 1
  ret i64 %y
}
