; A module whose debug info LLVM's verifier rejects (a location whose scope is a file), the rest
; valid: LLVM's readers drop such debug info with a warning.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"
define spir_kernel void @_ZTS2K1(ptr addrspace(1) %p) !dbg !5 {
  store i32 1, ptr addrspace(1) %p, !dbg !9
  ret void
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "x", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "a.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !6, unit: !0)
!6 = !DISubroutineType(types: !{})
!9 = !DILocation(line: 2, scope: !1)
