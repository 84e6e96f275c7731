; EXPECT: 2:24: error: constant string has 3 bytes but type is '[4 x i8]'
@s = constant [4 x i8] c"abc"
