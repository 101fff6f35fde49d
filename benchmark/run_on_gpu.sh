#!/usr/bin/env bash
# Runs the ladder (float and double), the Google Benchmark suite, the host enqueue-cost benchmark
# (gpureduce_overhead, saved as OUT_DIR/DEVICE-DATE-overhead.txt) and automatic's tuning sweep
# (DEVICE-DATE-automatic-sweep.txt) on the GPU, then report.py:
#   benchmark/run_on_gpu.sh OUT_DIR [DEVICE] [DATE]
# from the repository root, with the binaries in build/benchmark/ (override: GPUREDUCE_BENCH_BIN).
# DEVICE (for file names) defaults to the GPU's name from nvidia-smi, e.g. "h100-80gb-hbm3"; DATE to
# today (UTC). Extra arguments for gpureduce_bench: GPUREDUCE_BENCH_ARGS, placed last so they win
# (e.g. "--flush_l2", "--contenders=main", "--modes=stream", "--graph_min_time=0.005" or
# "--paired_min_time=0.02").
#
# Run time on an H100 with the defaults, about 4 minutes (an estimate: no GPU where this was
# written; report.py takes seconds):
#   ladder f32 + f64            ~10 s   (a guess: ~15 rows x 33 calls of <= a few ms, twice)
#   stream family (803 cases)  ~140 s   (~110 s reported for its former 627 cases, ~0.18 s a
#                                        case; grid_sync adds 121 sum/f32 cases and the floor
#                                        contender 55; not re-measured)
#   graph family (132 cases)    ~50 s   (99 reductions + 33 floor) Google Benchmark stops once the reported time passes
#       --graph_min_time = 0.002 s, and ramps up to it in ~1.5x that; the reported time is per
#       reduction, so each case replays ~100 x 1.5 x 0.002 s = 0.3 s of GPU time whatever its n,
#       plus per run 4 captures (one per allocation of temp storage), instantiations and 3
#       untimed replays each (negligible at small n; ~0.8 s per run for 2^28 doubles, ~0.7 ms a
#       reduction): ~0.35 s for 81 cases up to 2^24 and ~1 s for the 18 at 2^26 and 2^28, ~50 s
#       (host overhead per replay adds ~5%).
#       The floor cases are cheap (an empty kernel) but pay the same ~0.35 s.
# With --benchmark_min_time=0.05 for the graph family instead, it would be ~100 x 1.5 x 0.05 s
# = 7.5 s a case, 12 minutes: hence its own, smaller min time.
#   paired family (60 cases)    ~25 s   (5 cases x 6 sizes 2^10..2^20 x 2 pairs; not measured)
#       --paired_min_time = 0.05 s counts A's time only: ~8000 iterations of ~6 us, each
#       iteration two event-timed calls (A and CUB) at ~20 us of host round trip apiece, ~0.3 s,
#       plus Google Benchmark's ramp-up: ~0.4 s a case, about twice a small stream case.
#   gpureduce_automatic_sweep     ~20 s  (15 s on an H200, 2026-11-22)
#   gpureduce_overhead (9 cases)  ~10 s  (--benchmark_min_time=0.2 of host time each; the queue
#                                        drains, every 64 calls, are paused and come on top)
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

for exe in gpureduce_ladder gpureduce_bench gpureduce_overhead; do
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

# All three families (stream, graph and paired), the graph and paired families' min times spelled
# out so the recorded command says how it was run.
bench="$bin/gpureduce_bench --modes=all --graph_min_time=0.002 --paired_min_time=0.05 --benchmark_out=$stem.json --benchmark_out_format=json ${GPUREDUCE_BENCH_ARGS:-}"
echo "== $bench"
$bench || status=1

# Host-side enqueue cost: empty launch, CUB's Sum, gpureduce's Sum (default, zeroed, pointer check
# on/off). Google Benchmark 1.7 (the one shipped next to the binaries): min time in plain seconds.
overhead="$bin/gpureduce_overhead --benchmark_min_time=0.2"
echo "== $overhead"
$overhead | tee "$stem-overhead.txt" || status=1

# The tuning sweep behind `automatic` (benchmark/automatic_sweep.cu), if it was built: ~20 s.
sweep="$bin/gpureduce_automatic_sweep"
if [[ -x "$sweep" ]]; then
  echo "== $sweep"
  $sweep > "$stem-automatic-sweep.txt" || status=1
  grep -q WRONG "$stem-automatic-sweep.txt" && { echo "automatic sweep: a configuration answered wrong"; status=1; }
fi

# ArgMin/ArgMax, TransformReduce and BLAS level-1 against CUB and cuBLAS, paired (level1_paired.cu):
# 11 s on an H100 (2026-11-25, before each iteration also timed an empty launch for the floor
# columns: expect somewhat more). It writes $stem-level1.md and $stem-level1.csv; level1_plot.py
# draws the CSV into $stem-level1.png where matplotlib is installed.
if [[ -x "$bin/gpureduce_level1_paired" ]]; then
  echo "== $bin/gpureduce_level1_paired $stem-level1.md"
  "$bin/gpureduce_level1_paired" "$stem-level1.md" > /dev/null || status=1
  if [[ -s "$stem-level1.csv" ]]; then
    if python3 -c 'import matplotlib' 2> /dev/null; then
      python3 benchmark/level1_plot.py "$stem-level1.csv" "$stem-level1.png" || status=1
    else
      echo "run_on_gpu.sh: matplotlib is not installed: no $stem-level1.png (the .md and .csv are written)"
    fi
  fi
fi

# DeviceSegmentedReduce against cub::DeviceSegmentedReduce, paired (segmented_paired.cu): writes
# $stem-segmented.md and .csv, and segmented_plot.py draws GB/s against segment size into
# $stem-segmented.png where matplotlib is installed. Not yet timed on a GPU (a guess: 1-3 minutes,
# most of it CUB on 2^24-2^26 one-item segments).
if [[ -x "$bin/gpureduce_segmented_paired" ]]; then
  echo "== $bin/gpureduce_segmented_paired $stem-segmented.md"
  "$bin/gpureduce_segmented_paired" "$stem-segmented.md" > /dev/null || status=1
  if [[ -s "$stem-segmented.csv" ]] && python3 -c 'import matplotlib' 2> /dev/null; then
    python3 benchmark/segmented_plot.py "$stem-segmented.csv" "$stem-segmented.png" || status=1
  fi
fi

if [[ -s "$stem.json" ]]; then
  command="benchmark/run_on_gpu.sh $out $device $date, which ran:
$ladder_f32
$ladder_f64
$bench
$overhead
$sweep"
  python3 benchmark/report.py "$stem.json" --device "$device" --date "$date" --out "$out" \
    --command "$command" --ladder "$stem-ladder-f32.txt" --ladder "$stem-ladder-f64.txt" \
    --overhead "$stem-overhead.txt" || status=1
fi
echo "run_on_gpu.sh: files in $out:"
ls -l "$out"
exit $status
