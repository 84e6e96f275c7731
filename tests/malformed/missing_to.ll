; EXPECT: 3:20: error: expected 'to' after cast value
define i64 @f(i32 %a) {
  %x = zext i32 %a i64
  ret i64 %x
}
