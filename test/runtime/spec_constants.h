// The test runtime's specialization constants (spec_constants.c): an image's descriptors, the
// values the host set, what they become when the image is built (native) or launched
// (emulation). intel's runtime does the same in device_image_impl (its spec-constant blob).
#ifndef SPEC_CONSTANTS_H
#define SPEC_CONSTANTS_H

#include <stddef.h>
#include <stdint.h>

#include "properties/properties.h"

#define SPEC_CONSTANTS_SET "SYCL/specialization constants"
#define SPEC_DEFAULTS_SET "SYCL/specialization constants default values"
#define SPEC_PADDING_ID 0xffffffffu

// The values set so far: unique ID -> Buffer* (the value's bytes, as the host holds it).
typedef StrMap SpecValues;

// The bytes of the constant's value the image's descriptors of UNIQUE_ID read: the end of its
// last non-padding element. 0 when IMAGE does not describe UNIQUE_ID.
size_t spec_constant_extent(const PropertySets *image, const char *unique_id);

// The values of VALUES that IMAGE's native constants take (its SPIR-V, SIZE bytes, holds
// SpecIds), appended to KEY ("|id=hex..."): a program built with other values is another
// program. Emulated constants are read at launch and change no program.
void spec_constants_key(const PropertySets *image, const uint8_t *spirv, size_t size,
                        const SpecValues *values, Buffer *key);

// Native: the SpecId decorations of SPIRV are moved up by SHIFT (images linked together
// number their constants from 0 each); *NEXT_SHIFT becomes SHIFT + the highest ID + 1. Each
// set value of IMAGE's constants is appended to SPEC_CONST as "ID:iBITS:VALUE " (llvm-spirv's
// --spec-const), for the IDs the SPIR-V still holds. 0, or -1 with *errmsg.
int spec_constants_native(Buffer *spirv, const PropertySets *image, const SpecValues *values,
                          uint32_t shift, uint32_t *next_shift, Buffer *spec_const,
                          char **errmsg);

// Emulation: the buffer a kernel of IMAGE reads its constants from (intel's blob: the
// defaults, each set value written over its descriptors' places, padding included in the
// order of the property set). An empty buffer when IMAGE has no constants.
void spec_constants_blob(const PropertySets *image, const SpecValues *values, Buffer *blob);

#endif
