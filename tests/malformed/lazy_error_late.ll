; EXPECT: 10:3: error: expected ',' after select value
define i32 @ok(i32 %a) {
  ret i32 %a
}

define i32 @bad(i32 %a) {
entry:
  %x = mul i32 %a, %a
  %y = select i1 true, i32 %x
  ret i32 %y
}
