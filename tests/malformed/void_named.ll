; EXPECT: 4:3: error: instructions returning void cannot have a name
declare void @g()
define void @f() {
  %x = call void @g()
  ret void
}
