// Which images a named device target can run, from intel's device configuration file; for
// sycl-post-link's -o TARGET,FILE tables. It knows no target outside that table.
#include "properties/properties.h"

#include <string.h>

// intel/llvm llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td (read at 89110f9), the Intel
// GPU targets: every one has ext_intel_esimd plus fp16 and atomic64, some fp64; sub-group
// sizes 8, 16, 32, or 16 and 32 (PVC). The Xe2 and Xe3 GPUs intel's driver has since added
// (Lunar Lake, Battlemage G21 and G31, Panther Lake H and U, Wildcat Lake: the canonical names
// of its -fsycl-targets list) run 16 and 32 only, as PVC (Xe2 dropped SIMD8), with fp16, fp64
// and atomic64; intel's newer file lists them so. Only canonical names are listed (intel resolves the
// aliases in its driver). The file marks its aspect lists incomplete ("only the
// fp16/fp64/atomic64 aspects are listed"); its filter nonetheless drops a module needing any
// other aspect, and so does this one.
//
// Left out on purpose: the file's spir64, spir64_gen, spir64_x86_64, spir64_fpga and x86_64
// rows (empty lists, "may support other aspects"; intel's filter does not read that bit, so
// taken literally they would accept no module that needs an aspect or a sub-group size), and
// its nvidia_gpu_* / amd_gpu_* rows (no SPIR-V target of ours). Those stay unknown targets,
// which intel does not filter either.
typedef struct {
  const char *target;
  const char *const *aspects; // NULL-terminated
  const uint32_t *sub_group_sizes;
  size_t num_sub_group_sizes;
} TargetInfo;

static const char *const fp16_fp64_atomic64[] = {"ext_intel_esimd", "fp16", "fp64", "atomic64",
                                                 NULL};
static const char *const fp16_atomic64[] = {"ext_intel_esimd", "fp16", "atomic64", NULL};
static const uint32_t sg_8_16_32[] = {8, 16, 32};
static const uint32_t sg_16_32[] = {16, 32};
#define SG(list) list, sizeof list / sizeof *list

static const TargetInfo intel_gpu_targets[] = {
    {"intel_gpu_wcl", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_ptl_u", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_ptl_h", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_lnl_m", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_bmg_g31", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_bmg_g21", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_arl_h", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_mtl_h", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_mtl_u", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_pvc_vg", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_pvc", fp16_fp64_atomic64, SG(sg_16_32)},
    {"intel_gpu_acm_g12", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_acm_g11", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_acm_g10", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_dg1", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_adl_n", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_adl_p", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_adl_s", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_rkl", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_tgllp", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_ehl", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_icllp", fp16_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_cml", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_aml", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_whl", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_glk", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_apl", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_cfl", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_kbl", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_skl", fp16_fp64_atomic64, SG(sg_8_16_32)},
    {"intel_gpu_bdw", fp16_fp64_atomic64, SG(sg_8_16_32)},
};

static const TargetInfo *find_target(const char *target) {
  for (size_t i = 0; i < sizeof intel_gpu_targets / sizeof *intel_gpu_targets; i++)
    if (!strcmp(intel_gpu_targets[i].target, target)) return &intel_gpu_targets[i];
  return NULL;
}

static bool has_aspect(const TargetInfo *t, uint32_t aspect) {
  for (const char *const *a = t->aspects; *a; a++) {
    uint32_t value;
    if (aspect_value(*a, &value) == 0 && value == aspect) return true;
  }
  return false;
}

bool target_runs_image(const char *target, const PropertySets *sets) {
  const TargetInfo *t = find_target(target);
  if (!t) return true;
  const char *set = "SYCL/device requirements";
  const Property *aspects = propsets_find(sets, set, "aspects");
  if (aspects && aspects->type == PROP_BYTES)
    for (size_t i = 0; i + 4 <= aspects->bytes.size; i += 4) {
      const uint8_t *b = aspects->bytes.data + i;
      uint32_t aspect = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
      if (!has_aspect(t, aspect)) return false;
    }
  const Property *sub_group = propsets_find(sets, set, "reqd_sub_group_size");
  if (sub_group && sub_group->type == PROP_UINT32) {
    for (size_t i = 0; i < t->num_sub_group_sizes; i++)
      if (t->sub_group_sizes[i] == sub_group->u32) return true;
    return false;
  }
  return true;
}

const char *const *target_aspects(const char *target) {
  const TargetInfo *t = find_target(target);
  return t ? t->aspects : NULL;
}
