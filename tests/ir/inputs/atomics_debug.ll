; Atomics, fences, syncscopes, debug records, metadata operands and attachments.
source_filename = "atomics.c"

@g = global i64 0, align 8, !dbg !0

declare i64 @llvm.read_register.i64(metadata)
declare void @llvm.write_register.i64(metadata, i64)
declare i32 @llvm.ssa.copy.i32(i32 returned)

define i64 @atomics(ptr %p, i64 %v, double %d) !dbg !5 {
entry:
  %0 = atomicrmw add ptr %p, i64 %v seq_cst, align 8
  %1 = atomicrmw volatile xchg ptr %p, i64 %0 syncscope("singlethread") monotonic, align 8
  %2 = atomicrmw fadd ptr %p, double %d acq_rel, align 8
  %3 = atomicrmw fmax ptr %p, double %2 release, align 8
  %4 = atomicrmw umin ptr %p, i64 1 acquire, align 8
  %5 = cmpxchg ptr %p, i64 %v, i64 %4 seq_cst seq_cst, align 8
  %6 = cmpxchg weak volatile ptr %p, i64 %v, i64 %4 syncscope("agent") acq_rel monotonic, align 8
  %7 = extractvalue { i64, i1 } %6, 0
  fence acquire
  fence syncscope("singlethread") seq_cst
  %8 = load atomic i64, ptr %p unordered, align 8
  %9 = load atomic volatile i64, ptr %p syncscope("agent") acquire, align 8
  store atomic i64 %9, ptr %p release, align 8
  store atomic volatile i64 %8, ptr @g syncscope("singlethread") seq_cst, align 8
  #dbg_value(i64 %7, !9, !DIExpression(), !10)
  #dbg_value(!DIArgList(i64 %7, i64 %8), !9, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !10)
  %10 = add i64 %7, %8, !dbg !10
  %rsp = call i64 @llvm.read_register.i64(metadata !16)
  call void @llvm.write_register.i64(metadata !{!"rsp"}, i64 %rsp)
  %11 = load i64, ptr %p, align 8, !tbaa !11, !range !14, !noundef !15
  ret i64 %11, !dbg !10
}

!llvm.dbg.cu = !{!2}
!llvm.module.flags = !{!4}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(name: "g", scope: !2, file: !3, line: 1, type: !8, isLocal: false, isDefinition: true)
!2 = distinct !DICompileUnit(language: DW_LANG_C11, file: !3, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !{!0}, splitDebugInlining: false, nameTableKind: None)
!3 = !DIFile(filename: "atomics.c", directory: "/tmp")
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "atomics", scope: !3, file: !3, line: 2, type: !6, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !2)
!6 = !DISubroutineType(types: !7)
!7 = !{!8}
!8 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!9 = !DILocalVariable(name: "x", scope: !5, file: !3, line: 3, type: !8)
!10 = !DILocation(line: 3, column: 1, scope: !5)
!11 = !{!12, !12, i64 0}
!12 = !{!"long", !13, i64 0}
!13 = !{!"omnipotent char"}
!14 = !{i64 0, i64 100}
!15 = !{}
!16 = !{!"rsp"}
