; EXPECT: 5:1: error: expected instruction opcode, found '}'
define i32 @f(i32 %a) {
entry:
  %x = add i32 %a, 1
}
