; EXPECT: 3:3: error: instruction expected to be numbered '%2' or greater
define i32 @f(i32 %0) {
  %1 = add i32 %0, 1
  ret i32 %1
}
