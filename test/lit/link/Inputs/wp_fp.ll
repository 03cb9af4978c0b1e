; One unit, two kernels: Dbl computes in double (fp64 inferred from the type, no metadata),
; Int only in i32. Per source they would share an image; fp64 keeps them apart.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @_ZTS3Dbl(ptr addrspace(1) %out) #0 {
  %v = call spir_func i32 @_Z5scalei(i32 3)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define internal spir_func i32 @_Z5scalei(i32 %i) {
  %d = sitofp i32 %i to double
  %m = fmul double %d, 1.5
  %r = fptosi double %m to i32
  ret i32 %r
}

define spir_kernel void @_ZTS3Int(ptr addrspace(1) %out) #0 {
  store i32 7, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-module-id"="fp.cpp" }
