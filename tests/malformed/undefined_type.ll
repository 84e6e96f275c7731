; EXPECT: 2:13: error: use of undefined type named 'struct.Missing'
@g = global %struct.Missing zeroinitializer
