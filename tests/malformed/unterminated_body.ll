; EXPECT: 5:1: error: expected '}' at end of function body
define i32 @f(i32 %a) {
  %x = add i32 %a, 1
  ret i32 %x
