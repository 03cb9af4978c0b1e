# lit configuration: each test is an input, a command and the expected output beside it.
import os
import lit.formats

config.name = "sycl-thinlto"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ll", ".test", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.bin_dir), "test", "lit-out")

config.environment["PATH"] = os.pathsep.join(
    [config.bin_dir, config.llvm_bin, config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%sycl-thinlto", os.path.join(config.bin_dir, "sycl-thinlto")))
config.substitutions.append(("%libexec", config.libexec_dir))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_bin, "clang++")))
config.substitutions.append(("%clang ", os.path.join(config.llvm_bin, "clang") + " "))
config.substitutions.append(("%src_root", config.src_root))
# The test runtime (test/runtime) and its headers, for programs that run their kernels.
config.substitutions.append(("%runtime_dir", os.path.join(os.path.dirname(config.bin_dir), "test", "runtime")))
config.substitutions.append(("%runtime_src", os.path.join(config.src_root, "test", "runtime")))
# The build tree itself (install.test installs it into a temporary prefix).
config.substitutions.append(("%build_dir", os.path.dirname(config.bin_dir)))
# An OpenCL ICD to run kernels on: `%if pocl %{ ./app %}` runs a program only where pocl is.
if os.path.exists("/etc/OpenCL/vendors/pocl.icd"):
    config.available_features.add("pocl")
# Intel's offline compiler (intel-opencl-icd, `make deps`): ahead-of-time tests (test/lit/aot).
import shutil
if shutil.which("ocloc"):
    config.available_features.add("ocloc")
# Sanitizer builds: `REQUIRES: asan` for tests of what only they can check (leaks.test),
# `UNSUPPORTED: asan, tsan` for those whose time limits a sanitizer's slowness breaks.
if getattr(config, "sanitize", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")
    # Every command of every test is checked for leaks (LeakSanitizer), whatever ASAN_OPTIONS
    # the suite was started with (`make sanitize` turns them off for the unit tests and the
    # benchmark's smoke run, whose harnesses keep what they allocate until exit). Measured on
    # the link/ tests: within the noise of CPU time (about 108 s either way).
    config.environment["ASAN_OPTIONS"] = ":".join(
        filter(None, [config.environment.get("ASAN_OPTIONS", ""), "detect_leaks=1"]))
if getattr(config, "tsan", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("tsan")
# Root in a private mount namespace (unshare -m): tests that need a small, full file system
# mount a tmpfs there (`REQUIRES: mount`); nothing outside the test sees it.
import subprocess


def feature_if_runs(feature, command):
    """Adds FEATURE when COMMAND runs here and exits 0 (within 20 s)."""
    try:
        if subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=20).returncode == 0:
            config.available_features.add(feature)
    except (OSError, subprocess.SubprocessError):
        pass


feature_if_runs("mount", ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt"])
# Separate PID namespaces (root): two links that are both PID 1 beside each other (issue 30).
feature_if_runs("pidns", ["unshare", "--pid", "--fork", "--mount-proc", "true"])
# ext4's FS_TOPDIR_FL settable here (chattr +T): cache/spread-folders.test.
feature_if_runs("topdir", ["sh", "-c", 'd=$(mktemp -d -p "$0") || exit 1; chattr +T "$d" && '
                           'lsattr -d "$d" | cut -d" " -f1 | grep -q T; r=$?; rm -rf "$d"; exit $r',
                           os.path.dirname(config.bin_dir)])
# strace that can trace and hold a system call here (ptrace allowed): the hostile directory
# test (reliability/hostile-directory.test) and the races held open with strace's inject
# (cache/first-links.test, cache/signal-temporary.test).
import shutil
feature_if_runs("strace", ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=getpid",
                           "-e", "inject=getpid:delay_exit=1000", "true"])
