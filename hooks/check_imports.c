// --check-imports, after the hooks: a warning for each symbol an image imports that no image
// of this link exports. It decides nothing; the runtime may still find it in a shared library.
#include "hooks/hooks.h"

#include <stdlib.h>

void check_link_imports(const ImageResult *results, size_t count) {
  PropertySets *sets = xcalloc(count + 1, sizeof *sets);
  for (size_t i = 0; i < count; i++)
    image_result_properties(&results[i], &sets[i]);
  for (size_t i = 0; i < count; i++) {
    const PropertySet *imports = propsets_find_set(&sets[i], "SYCL/imported symbols");
    for (size_t s = 0; imports && s < imports->count; s++) {
      const char *symbol = imports->props[s].name;
      bool exported = false;
      for (size_t k = 0; k < count && !exported; k++)
        exported = propsets_find(&sets[k], "SYCL/exported symbols", symbol);
      if (exported) continue;
      char *shown = symbol_for_message(symbol);
      warning(results[i].module->input->origin,
              "imported symbol %s is exported by no image of this link (it may still come "
              "from a shared library at run time)",
              shown);
      free(shown);
    }
  }
  for (size_t i = 0; i < count; i++)
    propsets_free(&sets[i]);
  free(sets);
}
