// Fuzz target: the property JSON reader (propsets_from_json, properties/propset.c). What it
// accepts is written again (a fixed point after one round) and, where intel's .prop text can
// say the same names, goes through .prop and back unchanged.
#include "properties/properties.h"

#include <stdlib.h>
#include <string.h>

// Names .prop text can carry: no line breaks; a property's not empty, without '=', not
// starting with '[' (a set's line).
static bool prop_can_say(const PropertySets *p) {
  if (!p->count) return false;
  for (size_t i = 0; i < p->count; i++) {
    if (strchr(p->sets[i].name, '\n')) return false;
    for (size_t j = 0; j < p->sets[i].count; j++) {
      const char *name = p->sets[i].props[j].name;
      if (!*name || *name == '[' || strpbrk(name, "=\n")) return false;
    }
  }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (size) memcpy(text, data, size);
  text[size] = 0;
  PropertySets p, again, via_prop;
  char *errmsg;
  if (propsets_from_json(text, &p, &errmsg)) {
    free(errmsg);
    free(text);
    return 0;
  }
  char *json = propsets_to_json(&p);
  if (propsets_from_json(json, &again, &errmsg)) abort();
  char *json2 = propsets_to_json(&again);
  if (strcmp(json, json2)) abort();
  char *prop = propsets_to_prop(&p, &errmsg); // refused exactly where .prop cannot say it
  if (!prop != !prop_can_say(&p) && p.count) abort();
  if (!prop) free(errmsg);
  if (prop && p.count) {
    if (propsets_from_prop(prop, &via_prop, &errmsg)) abort();
    char *json3 = propsets_to_json(&via_prop);
    if (strcmp(json, json3)) abort();
    free(json3);
    propsets_free(&via_prop);
  }
  free(prop);
  propsets_order_as_intel(&p);
  free(json2);
  free(json);
  propsets_free(&again);
  propsets_free(&p);
  free(text);
  return 0;
}
