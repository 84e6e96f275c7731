; EXPECT: 3:38: error: invalid indices for extractvalue
define i32 @f({ i32, i32 } %s) {
  %x = extractvalue { i32, i32 } %s, 5
  ret i32 %x
}
