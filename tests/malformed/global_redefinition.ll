; EXPECT: 3:1: error: redefinition of global '@g'
@g = global i32 0
@g = global i32 1
