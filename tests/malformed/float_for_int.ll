; EXPECT: 3:11: error: floating point constant invalid for type
define i32 @f() {
  ret i32 1.5
}
