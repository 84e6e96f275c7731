; EXPECT: 3:20: error: use of undefined value '%x'
define i32 @f(i32 %a) {
  %r = add i32 %a, %x
  ret i32 %r
}
