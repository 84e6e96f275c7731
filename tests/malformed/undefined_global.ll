; EXPECT: 3:13: error: use of undefined value '@missing'
define void @f() {
  call void @missing()
  ret void
}
