; EXPECT: 3:1: error: expected top-level entity, found 'garbage'
source_filename = "x"
garbage here
