// The test runtime's C interface: registration entry points the wrapper object calls,
// shared memory, and launching a registered kernel over a range. For tests and examples;
// installed as PREFIX/include/sycl-thinlto/sycl_test_runtime.h.
#ifndef SYCL_TEST_RUNTIME_H
#define SYCL_TEST_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Called by every wrapper object's constructor and destructor (one per executable or
// shared library); the layouts are those of ARCHITECTURE.md (Wrapper).
struct sycl_bin_desc;
void __sycl_register_lib(struct sycl_bin_desc *desc);
void __sycl_unregister_lib(struct sycl_bin_desc *desc);

// Called by the constructor the host registration pass (sycl-thinlto register-host, seed 004)
// adds to every host module, before the module's other constructors: ADDRESS is a host
// variable, UNIQUE_ID the ID the device compiler keys its properties by, KIND "device_global"
// or "specialization_id". The strings stay valid as long as the module is loaded.
void __register_uniquely_identifiable_object(void *address, const char *unique_id,
                                             const char *kind);

// Flags of a device global (intel's DeviceGlobalProperty, bit 0 of its second word).
#define SYCL_TEST_DEVICE_IMAGE_SCOPE 1u
// What the runtime knows of the host variable at ADDRESS: its unique ID and kind (any of the
// out-pointers may be NULL), and from the "SYCL/device globals" property set of the first
// registered image that describes that ID, the size of the value and its flags. 0: found with
// device-global properties; 1: registered, but no registered image describes it (*size and
// *flags are 0: a specialization_id, or the images are not registered yet); -1: ADDRESS was
// never registered.
int sycl_test_lookup_host_object(const void *address, const char **unique_id, const char **kind,
                                 size_t *size, uint32_t *flags);

// Copies between the host and the device global of the host variable at ADDRESS (its value:
// the size its SYCL/device globals property gives; [OFFSET, OFFSET + SIZE) must lie in it).
// pocl has no clEnqueueWriteGlobalVariable: the runtime adds to every image two kernels per
// device global (found by its HostAccessINTEL ID) that copy it to and from a buffer. Each
// program holding the variable has its own copy: a write goes to every program built so far
// and to those built later; a read comes from the one that ran a kernel last (or is the value
// written last). The variable's storage is taken as the value itself (device_image_scope's
// layout; DPC++ keeps other device globals behind a USM pointer). 0, or -1 after printing why.
int sycl_test_copy_to_device_global(const void *address, const void *src, size_t size,
                                    size_t offset);
int sycl_test_copy_from_device_global(const void *address, void *dst, size_t size, size_t offset);

// Sets the specialization constant of the specialization_id host variable at ADDRESS to the
// SIZE bytes at VALUE (the T of specialization_id<T>, as the host lays it out), for every
// kernel launched from now on, in every image that uses it: the runtime finds the constant's
// unique ID by ADDRESS (the host registration), and its elements in each image's
// "SYCL/specialization constants" property set. Native constants (SpecId in the SPIR-V) get
// the value when the image set is built (llvm-spirv-15 -r --spec-const=...; a program is
// built again for other values); emulated ones in the buffer a kernel's second argument gets.
// One value per constant for the whole process (not per queue or kernel bundle, as in SYCL).
// 0, or -1 after printing why (ADDRESS not registered, not a specialization_id, or SIZE smaller
// than the value a registered image reads).
int sycl_test_set_specialization_constant(const void *address, const void *value, size_t size);

// Memory both the host and the kernels use (OpenCL shared virtual memory).
void *sycl_test_malloc(size_t size);
void sycl_test_free(void *p);

// Runs the kernel named KERNEL (its mangled name, "_ZTS...") on N work-items, passing
// CAPTURES (SIZE bytes: the lambda) as its one argument. 0, or -1 after printing why.
int sycl_test_launch(const char *kernel, size_t n, const void *captures, size_t size);

// Opens the OpenCL device now (it is otherwise opened by the first call that needs it).
// 0, or -1 after printing why.
int sycl_test_open_device(void);
// Resolves and builds the image set KERNEL needs, as its first launch would, and creates
// the kernel, without running it (the benchmark's time to the first kernel). 0, or -1
// after printing why.
int sycl_test_build_kernel(const char *kernel);

// The device aspects the resolver is told about ("fp64,fp16"); NULL restores the
// default, which is the environment's SYCL_TEST_DEVICE_ASPECTS or what the device reports.
void sycl_test_set_device_aspects(const char *comma_separated);

// How many programs were built so far: each image set is built once, then cached.
int sycl_test_programs_built(void);
// The images KERNEL's program was built from, as launched last with the current aspects:
// "app[3] app[0]:set_default app[2]:set_fp64:dummy" (a set image names its virtual-functions
// set, a set's dummy image says so); NULL if it was not launched. Owned by the runtime.
const char *sycl_test_image_set(const char *kernel);
// How many device images are registered now, over all loaded modules.
int sycl_test_registered_images(void);

#ifdef __cplusplus
}
#endif

#endif
