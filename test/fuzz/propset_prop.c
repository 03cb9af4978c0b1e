// Fuzz target: intel's .prop text reader (propsets_from_prop, properties/propset.c). What it
// accepts is written again (a fixed point after one round) and goes through JSON and back
// unchanged.
#include "properties/properties.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (size) memcpy(text, data, size);
  text[size] = 0;
  PropertySets p, again, via_json;
  char *errmsg;
  if (propsets_from_prop(text, &p, &errmsg)) {
    free(errmsg);
    free(text);
    return 0;
  }
  char *prop = propsets_to_prop(&p, &errmsg); // what was read can be written
  if (!prop || propsets_from_prop(prop, &again, &errmsg)) abort();
  char *prop2 = propsets_to_prop(&again, &errmsg);
  if (!prop2) abort();
  if (strcmp(prop, prop2)) abort();
  char *json = propsets_to_json(&p);
  if (propsets_from_json(json, &via_json, &errmsg)) abort();
  char *json2 = propsets_to_json(&via_json);
  if (strcmp(json, json2)) abort();
  free(json2);
  free(json);
  free(prop2);
  free(prop);
  propsets_free(&via_json);
  propsets_free(&again);
  propsets_free(&p);
  free(text);
  return 0;
}
