// Host-only code: its object has no .llvm.offloading section.
int host_function(int x) { return x + 1; }
