; EXPECT: 4:12: error: use of undefined value '%nowhere'
define void @f() {
entry:
  br label %nowhere
}
