; EXPECT: 2:12: error: expected function name
define i32 %f(i32 %a) {
  ret i32 %a
}
