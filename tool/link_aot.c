// The link's AOT stage (issue 33): the finished images compiled by ocloc for the --arch
// devices (hooks/aot.c), then written as native images, the SPIR-V ones beside them if asked.
// It does not decide which devices are meant (aot_plan does) or how images are linked.
#include "tool/tool.h"

#include <stdlib.h>
#include <string.h>

// The triple intel's runtime knows native Intel GPU images by (its "spir64_gen" target).
static const char native_triple[] = "spir64_gen-unknown-unknown";

// IMAGE's properties with intel's compile_target, the device the image was compiled for, as sycl-post-link
// writes it for `-o intel_gpu_pvc,FILE`.
static char *native_properties(const ImageResult *image, const char *target) {
  PropertySets sets;
  image_result_properties(image, &sets);
  propsets_remove(&sets, "SYCL/device requirements", "compile_target");
  propsets_add_bytes(&sets, "SYCL/device requirements", "compile_target", target, strlen(target));
  char *json = propsets_to_json(&sets);
  propsets_free(&sets);
  return json;
}

void link_native_output(const char *output, const AotPlan *plan, const AotOptions *opts,
                        ImageResult *results, size_t count) {
  size_t num_native;
  progress_stage("aot", 0); // ocloc's runs are on threads of their own: the stage only
  AotImage *natives = aot_compile(plan, opts, results, count, &num_native);
  size_t total = num_native + (plan->spirv ? count : 0), n = 0;
  OutputImage *images = xcalloc(total + 1, sizeof *images);
  char **properties = xcalloc(num_native + 1, sizeof *properties);
  // Per image: its SPIR-V (JIT) when asked, then its native images in the devices' order.
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    if (plan->spirv)
      images[n++] = (OutputImage){.spirv = &results[i].spirv,
                                  .symbols = &results[i].symbols,
                                  .properties = &results[i].properties};
    for (; k < num_native && natives[k].image == i; k++) {
      const AotDevice *d = &plan->devices[natives[k].device];
      properties[k] = native_properties(&results[i], d->target);
      images[n++] = (OutputImage){.spirv = &natives[k].native,
                                  .symbols = &results[i].symbols,
                                  .properties = &properties[k],
                                  .kind = IMG_OBJECT,
                                  .triple = native_triple,
                                  .arch = d->name};
    }
  }
  size_t hits = 0;
  for (size_t i = 0; i < num_native; i++)
    hits += natives[i].from_cache;
  note("aot: %zu native image(s) for %zu device(s), %zu compiled, %zu from the cache", num_native,
       plan->num_devices, num_native - hits, hits);
  if (!n && count) warning(output, "no image any --arch device can run; the output holds no image");
  OutputWriter w;
  output_open(&w, output, NULL, images, n, 1);
  output_commit(&w);
  for (size_t i = 0; i < num_native; i++) {
    buffer_free(&natives[i].native);
    free(properties[i]);
  }
  free(properties);
  free(natives);
  free(images);
}
