#!/usr/bin/env bash
# The multi-GPU run (issue 26's scaling run on 4 and 8 GPUs; on 2 it is the dry run): from the
# repository root on a machine with several GPUs,
#   benchmark/run_scaling.sh OUT_DIR [BUILD_DIR]
# builds (all cores) unless BUILD_DIR holds a build, runs the multi-GPU tests (one process driving
# every GPU, and a process per GPU, every type, op and split, the correctly rounded path against
# the one-GPU result) with GPUREDUCE_REQUIRE_GPU=1, then gpureduce_nccl_bench (1, 2, 4, 8 GPUs up to
# the machine's, total n 2^20 .. 2^32, or 2^34 with GPUREDUCE_NCCL_MAX_LOG2=34) and nccl_plot.py.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): on these machines it can take the host's GPUs
# out of service.
set -uo pipefail
out=${1:?usage: benchmark/run_scaling.sh OUT_DIR [BUILD_DIR]}
build=${2:-build-scaling}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 GPUREDUCE_REQUIRE_GPU=1 PATH=/usr/local/cuda/bin:$PATH
gpus=$(nvidia-smi -L | wc -l)
stem="$out/$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr '[:upper:] ' '[:lower:]-' | sed 's/^nvidia-//')-x$gpus-$(date -u +%F)"
nvidia-smi topo -m > "$stem-topology.txt" 2>&1
if [[ ! -x "$build/benchmark/gpureduce_nccl_bench" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUREDUCE_WITH_NCCL=ON > "$stem-build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target gpureduce_nccl_tests gpureduce_nccl_rank gpureduce_multigpu_tests gpureduce_nccl_bench >> "$stem-build.log" 2>&1 ||
    { tail -30 "$stem-build.log"; exit 1; }
fi
status=0
export GPUREDUCE_NCCL_RANK_BINARY=$PWD/$build/test/gpureduce_nccl_rank
"$build/test/gpureduce_multigpu_tests" > "$stem-tests.log" 2>&1 || status=1
"$build/test/gpureduce_nccl_tests" >> "$stem-tests.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAIL " "$stem-tests.log"
"$build/benchmark/gpureduce_nccl_bench" --max_log2="${GPUREDUCE_NCCL_MAX_LOG2:-32}" > "$stem-nccl.csv" || status=1
python3 benchmark/nccl_plot.py "$stem-nccl.csv" "$stem-nccl" || status=1
cat "$stem-nccl.md"
exit $status
