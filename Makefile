# The two commands a new user runs: `make demo` and `make test`.
# Everything is built by CMake under $(BUILD); Debian packages come from `make deps`.
BUILD ?= build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Every Debian package the build, the tests and the demo need.
PACKAGES := cmake make gcc g++ pkg-config python3 gnuplot-nox \
  clang-22 llvm-22-dev llvm-22-linker-tools llvm-22-tools clang-tools-22 \
  libuv1-dev spirv-tools pocl-opencl-icd ocl-icd-opencl-dev llvm-spirv-15 lld \
  libclang-rt-22-dev slurmctld slurmd slurm-client munge libzstd-dev zstd libjansson-dev strace \
  intel-opencl-icd

.PHONY: all deps build install test demo conformance bench sanitize tsan fuzz clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $$missing; \
	fi

# RelWithDebInfo unless the build folder was configured with another type (CMakeLists.txt):
# `make install BUILD=build` installs the build that is there, without rebuilding it all.
build: deps
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Installs sycl-thinlto under $(PREFIX): bin/, libexec/sycl-thinlto/ (clang's -B directory),
# the test runtime and its headers, the man page, bash completion, the CMake package.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@BUILD=$(BUILD) examples/demo.sh

# Every end-to-end program, built through the linker-wrapper mode and run on pocl: a table
# of kernels passed and failed per program and build variant (also part of `make test`).
# INTEL_LLVM=DIR (a checkout of intel/llvm, read in place): intel's sycl-post-link and
# clang-linker-wrapper SYCL lit tests against our tools too, a table and
# $(BUILD)/conformance-intel.xml; their failures are reported, not make's failure.
conformance: build
	@test/e2e/conformance.sh $(BUILD)
	$(if $(INTEL_LLVM),-@python3 test/e2e/intel_lit.py --intel $(INTEL_LLVM) --build $(BUILD) \
	  --junit $(BUILD)/conformance-intel.xml)

# The link-time benchmark, side by side with upstream clang-sycl-linker (bench/README.md).
# SIZE=small (about a minute) or SIZE=large (400 units x 10 kernels); JOBS_LIST=1,2,4,...;
# REUSE=1 links the objects an earlier run compiled instead of compiling again.
SIZE ?= small
bench: build
	$(BUILD)/bin/sycl-bench --size $(SIZE) --out bench/out --tool $(BUILD)/bin/sycl-thinlto \
	  --gen $(BUILD)/bin/sycl-bench-gen $(if $(JOBS_LIST),--jobs $(JOBS_LIST)) \
	  $(if $(REUSE),--reuse-objects) --runtime $(BUILD)/test/runtime \
	  --first-object $(BUILD)/bench/CMakeFiles/sycl-bench-first.dir/first_kernel.c.o

# ASan + UBSan build of everything, running every test; the lit suite with LeakSanitizer too
# (test/lit/lit.cfg.py adds detect_leaks=1 there). use_sigaltstack=0: LLVM installs its
# own alternate signal stack in libLTO's threads when its cache writes a file, and ASan would
# then try to unmap LLVM's (malloc'd) stack at thread exit and abort.
sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSANITIZE=ON >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0:detect_stack_use_after_return=1:allocator_may_return_null=1 ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer build: the parallel stages under TSan (test/lit/link/parallel.test runs
# -j4 links). atexit_sleep_ms=0: TSan otherwise sleeps 1 s before a process exits, after the
# link has written its output, and a signal arriving then is lost (exit status 0), which
# signals.test's kills at 60% of a link's time can hit. allocator_may_return_null: a failed
# allocation reaches our out-of-memory error (errors/out-of-memory.test), as under ASan.
tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DTSAN=ON >/dev/null
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=suppressions=$(CURDIR)/test/tsan.supp:atexit_sleep_ms=0:allocator_may_return_null=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (test/fuzz/README.md), clang-22 with ASan + UBSan in build-fuzz: each runs
# FUZZ_SECONDS (and at most FUZZ_RUNS inputs, if given); FUZZ_TARGETS picks some. Findings go
# to build-fuzz/fuzz/findings/. `make test` runs every corpus once, without libFuzzer.
# The `commands` target mutates whole inputs of `link` and `post-link` (test/fuzz/commands.py),
# run by the ordinary build's tool.
FUZZ_SECONDS ?= 60
fuzz: build
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUZZ=ON \
	  -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz-targets
	FUZZ_RUNS=$(FUZZ_RUNS) SYCL_THINLTO=$(BUILD)/bin/sycl-thinlto \
	  test/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
