; EXPECT: 3:9: error: expected type
define void @f(ptr %p) {
  store , ptr %p
  ret void
}
