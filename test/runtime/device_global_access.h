// The test runtime's binding of device globals to shared memory (device_global_access.c).
#ifndef DEVICE_GLOBAL_ACCESS_H
#define DEVICE_GLOBAL_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t variable; // the OpVariable's result id in the image
  void *address;     // the memory it becomes (SVM the runtime owns)
  bool bound;        // set by bind_device_globals: false if its initializer is not zero
} DeviceGlobalBinding;

// Every variable of BINDINGS defined in SPIRV with no initializer or a zero one becomes a
// constant pointer to its ADDRESS. 0, or -1 with *errmsg.
int bind_device_globals(Buffer *spirv, DeviceGlobalBinding *bindings, size_t count, char **errmsg);

#endif
