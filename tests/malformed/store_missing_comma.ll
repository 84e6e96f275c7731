; EXPECT: 3:15: error: expected ',' after store value
define void @f(ptr %p) {
  store i32 1 ptr %p
  ret void
}
