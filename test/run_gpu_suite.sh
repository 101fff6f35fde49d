#!/usr/bin/env bash
# The whole GPU check in one go, for a machine with a GPU: configure and build (all cores), run
# every test with GPUREDUCE_REQUIRE_GPU=1, then compute-sanitizer memcheck, racecheck, synccheck
# and initcheck over a representative subset (sizes capped: the sanitizers slow kernels ~100x).
# Logs go to $1 (default ./gpu-logs). Exit status: non-zero if any step failed. Environment:
# GPUREDUCE_CMAKE_ARGS (configure), GPUREDUCE_CTEST_LABEL / GPUREDUCE_CTEST_EXCLUDE (label
# regexes, to split the run, e.g. EXCLUDE=stress then LABEL=stress), GPUREDUCE_SKIP_CTEST=1 /
# GPUREDUCE_SKIP_SANITIZERS=1 (skip a step). A second run reuses the build (incremental).
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-gpu-logs}
build=${GPUREDUCE_BUILD_DIR:-build-gpu}
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH GPUREDUCE_REQUIRE_GPU=1 NCCL_NVLS_ENABLE=0
status=0
step() { echo "== $*"; }

step "device"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.mem --format=csv | tee "$logs/device.txt"
step "configure + build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 ${GPUREDUCE_CMAKE_ARGS:-} > "$logs/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >> "$logs/build.log" 2>&1 || { tail -50 "$logs/build.log"; exit 1; }

if [ "${GPUREDUCE_SKIP_CTEST:-0}" != 1 ]; then
  # Label multigpu needs two GPUs (and fails without them under GPUREDUCE_REQUIRE_GPU=1).
  out=${GPUREDUCE_CTEST_EXCLUDE:-}
  [ "$(nvidia-smi -L | wc -l)" -lt 2 ] && out=${out:+$out|}multigpu
  select=(); [ -n "$out" ] && select+=(-LE "$out")
  [ -n "${GPUREDUCE_CTEST_LABEL:-}" ] && select+=(-L "$GPUREDUCE_CTEST_LABEL")
  part=${GPUREDUCE_CTEST_LABEL:+-$GPUREDUCE_CTEST_LABEL}
  step "ctest ${select[*]}"
  ctest --test-dir "$build" --output-on-failure -j 4 --timeout 900 "${select[@]}" \
    > "$logs/ctest$part.log" 2>&1 || status=1
  tail -15 "$logs/ctest$part.log"
fi

bin=$build/test/gpureduce_gpu_tests
subset='StreamOwnedState.*:Matrix_Sum_float.*:Matrix_Min_half.*:Matrix_Sum_int64.*:Matrix_Sum_half_float.*:Semantics.*:BadInput.*:TemplateHeader.*:CubOrder.*:Automatic.*:GridSync.*:Cluster.*:FlaggedSlots.RearmAfterEveryGridFloat:FlaggedSlots.RearmAfterEveryGridDouble:CorrectlyRounded.FloatEveryGrid:CorrectlyRounded.DoubleEveryGrid:CorrectlyRounded.PermutationsGiveIdenticalBits:CorrectlyRounded.StreamsAndGraphs:CorrectlyRounded.BadInput*'
small='Matrix_Sum_float.*:Matrix_Max_double.*:BlockAndGrid.FloatSumSmallIntegers:CorrectlyRounded.FloatEveryGrid:CorrectlyRounded.DoubleEveryGrid'
[ "${GPUREDUCE_SKIP_SANITIZERS:-0}" = 1 ] && exit $status
for tool in ${GPUREDUCE_SANITIZERS:-memcheck racecheck synccheck initcheck}; do
  step "compute-sanitizer $tool"
  filter=$subset; cap=70000
  [ "$tool" != memcheck ] && { filter=$small; cap=5000; }
  GPUREDUCE_TEST_MAX_N=$cap compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" \
    --gtest_filter="$filter" > "$logs/sanitizer-$tool.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$logs/sanitizer-$tool.log" | tail -4
done
exit $status
