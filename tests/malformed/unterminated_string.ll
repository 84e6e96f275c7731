; EXPECT: 2:22: error: unterminated string constant
@s = global [3 x i8] c"ab
