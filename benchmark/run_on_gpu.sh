#!/usr/bin/env bash
# Runs the ladder (float and double) and the Google Benchmark suite on the GPU, then report.py:
#   benchmark/run_on_gpu.sh OUT_DIR [DEVICE] [DATE]
# from the repository root, with the binaries in build/benchmark/ (override: GPUREDUCE_BENCH_BIN).
# DEVICE (for file names) defaults to the GPU's name from nvidia-smi, e.g. "h100-80gb-hbm3"; DATE to
# today (UTC). Extra arguments for gpureduce_bench: GPUREDUCE_BENCH_ARGS (e.g. "--flush_l2" or
# "--contenders=main"). About 4-5 minutes on an H100 with the defaults.
set -uo pipefail

out=${1:?usage: benchmark/run_on_gpu.sh OUT_DIR [DEVICE] [DATE]}
bin=${GPUREDUCE_BENCH_BIN:-build/benchmark}
device=${2:-}
if [[ -z "$device" ]]; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 |
           tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
  device=${device:-gpu}
fi
date=${3:-$(date -u +%F)}
stem="$out/$device-$date"
mkdir -p "$out"

for exe in gpureduce_ladder gpureduce_bench; do
  if [[ ! -x "$bin/$exe" ]]; then
    echo "run_on_gpu.sh: $bin/$exe not found; build first: cmake --preset release && cmake --build --preset release" >&2
    exit 1
  fi
done

status=0
# The ladder exits 1 if a row failed or is outside its error bound: keep going, report it at the end.
ladder_f32="$bin/gpureduce_ladder"
ladder_f64="$bin/gpureduce_ladder --type f64"
echo "== $ladder_f32"
$ladder_f32 | tee "$stem-ladder-f32.txt" || status=1
echo "== $ladder_f64"
$ladder_f64 | tee "$stem-ladder-f64.txt" || status=1

bench="$bin/gpureduce_bench --benchmark_out=$stem.json --benchmark_out_format=json ${GPUREDUCE_BENCH_ARGS:-}"
echo "== $bench"
$bench || status=1

if [[ -s "$stem.json" ]]; then
  command="benchmark/run_on_gpu.sh $out $device $date, which ran:
$ladder_f32
$ladder_f64
$bench"
  python3 benchmark/report.py "$stem.json" --device "$device" --date "$date" --out "$out" \
    --command "$command" --ladder "$stem-ladder-f32.txt" --ladder "$stem-ladder-f64.txt" || status=1
fi
echo "run_on_gpu.sh: files in $out:"
ls -l "$out"
exit $status
