// sycl-bench-gen: writes a synthetic but realistic SYCL program as C++ sources, one file per
// translation unit. It compiles nothing; bench.c compiles, links and measures.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// The shape of the program. Every unit defines HELPERS SYCL_EXTERNAL functions and KERNELS
// kernels; each kernel calls helpers of its own unit and of two others (cross-unit imports),
// OpenCL math builtins, a devicelib-style function from a bitcode library, and templates
// that every unit instantiates (linkonce_odr copies everywhere).
typedef struct {
  int units, kernels, helpers, body;
  int edit; // a different constant in unit 0: the "one edited unit" of a relink
  const char *dir;
} Shape;

static void usage(void) {
  fputs("usage: sycl-bench-gen [--units N] [--kernels K] [--helpers H] [--body B] [--edit E] "
        "-o DIR\n",
        stderr);
  exit(2);
}

static FILE *open_out(const Shape *s, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", s->dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "sycl-bench-gen: error: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  return f;
}

static void write_header(const Shape *s) {
  FILE *f = open_out(s, "bench.h");
  fputs("// Shared by every unit: the kernel entry and templates instantiated everywhere.\n"
        "#pragma once\n"
        "template <typename Name, typename F>\n"
        "[[clang::sycl_kernel_entry_point(Name)]] void kernel_entry(F f) { f(); }\n"
        "[[clang::sycl_external]] float sin(float);\n"
        "[[clang::sycl_external]] float exp(float);\n"
        "[[clang::sycl_external]] float fmax(float, float);\n"
        "extern \"C\" [[clang::sycl_external]] float __devicelib_bench_fma(float, float, float);\n"
        "template <typename T> [[gnu::noinline]] T smooth(T x, int n) {\n"
        "  T r = x;\n"
        "  for (int i = 0; i < n; i++) r = r * T(0.5) + x / T(i + 1);\n"
        "  return r;\n"
        "}\n"
        "template <typename T, int N> struct Stencil {\n"
        "  T w[N];\n"
        "  [[gnu::noinline]] T apply(const T *p) const {\n"
        "    T s = 0;\n"
        "    for (int i = 0; i < N; i++) s += w[i] * p[i];\n"
        "    return s;\n"
        "  }\n"
        "};\n",
        f);
  fclose(f);
}

static void write_devicelib(const Shape *s) {
  FILE *f = open_out(s, "devicelib.ll");
  fputs("; A devicelib-style bitcode library, passed with --device-libs.\n"
        "target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-"
        "v256:256-v512:512-v1024:1024-n8:16:32:64-G1\"\n"
        "target triple = \"spirv64-unknown-unknown\"\n"
        "define weak spir_func float @__devicelib_bench_fma(float %a, float %b, float %c) {\n"
        "  %m = fmul float %a, %b\n"
        "  %r = fadd float %m, %c\n"
        "  ret float %r\n"
        "}\n",
        f);
  fclose(f);
}

static void write_unit(const Shape *s, int u) {
  char name[64];
  snprintf(name, sizeof name, "u%04d.cpp", u);
  FILE *f = open_out(s, name);
  int prev = (u + s->units - 1) % s->units, far = (u + 7) % s->units;
  float constant = 1.0f + u * 0.001f + (u == 0 ? s->edit : 0);
  fprintf(f, "// Unit %d of %d: %d helpers, %d kernels.\n#include \"bench.h\"\n\n", u, s->units,
          s->helpers, s->kernels);
  for (int h = 0; h < s->helpers; h++) {
    if (prev != u) fprintf(f, "[[clang::sycl_external]] float h%04d_%d(float);\n", prev, h);
    if (far != u && far != prev)
      fprintf(f, "[[clang::sycl_external]] float h%04d_%d(float);\n", far, h);
  }
  for (int h = 0; h < s->helpers; h++) {
    fprintf(f, "\n[[clang::sycl_external]] [[gnu::noinline]] float h%04d_%d(float x) {\n", u, h);
    fprintf(f, "  float r = x * %.4ff;\n", constant);
    for (int b = 0; b < s->body; b++)
      fprintf(f, "  r = %s(r * %.3ff + %d.0f) + smooth(r, %d);\n", b % 3 == 0 ? "sin" : "exp",
              0.5f + b * 0.01f, b, b % 5 + 1);
    fprintf(f, "  return __devicelib_bench_fma(r, x, %d.0f);\n}\n", h);
  }
  fprintf(f, "\n");
  for (int k = 0; k < s->kernels; k++)
    fprintf(f, "struct K%04d_%d;\n", u, k);
  fprintf(f, "\nvoid launch%04d(float *p, int n) {\n", u);
  fprintf(f, "  Stencil<float, 4> st{{0.25f, 0.5f, 0.125f, 0.125f}};\n");
  for (int k = 0; k < s->kernels; k++) {
    int h = k % s->helpers;
    fprintf(f, "  kernel_entry<K%04d_%d>([=]() {\n", u, k);
    fprintf(f, "    float s = 0;\n");
    fprintf(f, "    for (int i = 0; i < n; i++) {\n");
    fprintf(f, "      float v = h%04d_%d(p[i]) + h%04d_%d(p[i + 1]) + h%04d_%d(p[i + 2]);\n", u, h,
            prev, h, far, h);
    for (int b = 0; b < s->body / 2 + 1; b++)
      fprintf(f, "      v = fmax(v, st.apply(p + i) * %.2ff) + smooth(v, %d);\n", 1.0f + b,
              k % 4 + 1);
    fprintf(f, "      s += v;\n    }\n    p[%d] = s;\n  });\n", k);
  }
  fprintf(f, "}\n");
  fclose(f);
}

int main(int argc, char **argv) {
  Shape s = {.units = 40, .kernels = 10, .helpers = 4, .body = 6};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) usage();
    if (!strcmp(a, "--units"))
      s.units = atoi(v);
    else if (!strcmp(a, "--kernels"))
      s.kernels = atoi(v);
    else if (!strcmp(a, "--helpers"))
      s.helpers = atoi(v);
    else if (!strcmp(a, "--body"))
      s.body = atoi(v);
    else if (!strcmp(a, "--edit"))
      s.edit = atoi(v);
    else if (!strcmp(a, "-o"))
      s.dir = v;
    else
      usage();
    i++;
  }
  if (!s.dir || s.units < 1 || s.kernels < 1 || s.helpers < 1 || s.body < 0) usage();
  mkdir(s.dir, 0777);
  write_header(&s);
  write_devicelib(&s);
  for (int u = 0; u < s.units; u++)
    write_unit(&s, u);
  return 0;
}
