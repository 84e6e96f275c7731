; EXPECT: 2:19: error: ptr* is invalid - use ptr instead
define void @f(i32* %p) {
  ret void
}
