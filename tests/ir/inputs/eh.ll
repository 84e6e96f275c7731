; Windows-style funclets and Itanium landing pads.
target triple = "x86_64-pc-windows-msvc"

%rtti.TypeDescriptor2 = type { ptr, ptr, [3 x i8] }

@"??_R0H@8" = global %rtti.TypeDescriptor2 { ptr null, ptr null, [3 x i8] c".H\00" }

declare void @may_throw(i32)
declare i32 @__CxxFrameHandler3(...)
declare void @cleanup()

define void @funclets(i32 %x) personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 %x)
          to label %ok unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup

handler:
  %cp = catchpad within %cs [ptr @"??_R0H@8", i32 0, ptr null]
  call void @cleanup() [ "funclet"(token %cp) ]
  catchret from %cp to label %ok

cleanup:
  %cl = cleanuppad within none []
  call void @cleanup() [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller

ok:
  ret void
}

define void @nested(i32 %x) personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 %x)
          to label %ok unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %h1, label %h2] unwind to caller

h1:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  invoke void @may_throw(i32 1) [ "funclet"(token %cp) ]
          to label %h1ok unwind label %inner

inner:
  %cl = cleanuppad within %cp []
  cleanupret from %cl unwind to caller

h1ok:
  catchret from %cp to label %ok

h2:
  %cp2 = catchpad within %cs []
  catchret from %cp2 to label %ok

ok:
  ret void
}
