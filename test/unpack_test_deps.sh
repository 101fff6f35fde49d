#!/usr/bin/env bash
# For a GPU machine with CUDA but no network and none of the tests' libraries (GoogleTest, Google
# Benchmark, MPFR): unpacks Debian packages brought along into / and makes the unversioned links
# the linker needs, so test/run_gpu_suite.sh can build there. As root:
#   test/unpack_test_deps.sh DEB_DIR
# DEB_DIR holds, downloaded where Debian's archive is reachable (bookworm, the CI image's release):
#   apt-get download googletest libgtest-dev libbenchmark-dev libbenchmark1debian \
#     libmpfr-dev libmpfr6 libgmp-dev libgmp10 libgmpxx4ldbl
set -euo pipefail
dir=${1:?usage: test/unpack_test_deps.sh DEB_DIR}
shopt -s nullglob
debs=("$dir"/*.deb)
[[ ${#debs[@]} -gt 0 ]] || { echo "no .deb files in $dir" >&2; exit 1; }
for deb in "${debs[@]}"; do dpkg -x "$deb" /; done
# The -dev packages' unversioned links point at runtime packages' files; make sure they resolve.
lib=/usr/lib/x86_64-linux-gnu
for name in mpfr:6 gmp:10; do
  base=${name%%:*} major=${name##*:}
  if [[ -e $lib/lib$base.so.$major && ! -e $lib/lib$base.so ]]; then
    ln -sf "lib$base.so.$major" "$lib/lib$base.so"
  fi
done
ldconfig
echo "unpacked ${#debs[@]} packages from $dir"
