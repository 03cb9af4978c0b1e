# Sourced by the device scripts, which run from the repository root: device_setup PACK...
# unpacks .devpack/libs.tar.xz (LLVM's and our libraries) into /tmp/d and each PACK into /tmp/p,
# points LD_LIBRARY_PATH there and changes to /tmp/p. The device has no zstd and may have no
# xz: python3's tarfile then.
unpack() { # ARCHIVE DIR
  if command -v xz >/dev/null; then tar xJf "$1" -C "$2"
  else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi
}
device_setup() {
  mkdir -p /tmp/d /tmp/p
  unpack .devpack/libs.tar.xz /tmp/d
  local pack
  for pack in "$@"; do unpack "$pack" /tmp/p; done
  export LD_LIBRARY_PATH=/tmp/d/lib
  cd /tmp/p || exit 1
}
