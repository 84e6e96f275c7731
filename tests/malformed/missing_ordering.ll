; EXPECT: 3:35: error: expected ordering on atomic instruction
define void @f(ptr %p) {
  %v = atomicrmw add ptr %p, i32 1, align 4
  ret void
}
