#!/usr/bin/env bash
# Where a correctly rounded kernel spends its time, instruction by instruction: Nsight Compute's
# full set on one launch of automatic's kernel (exact_automatic_kernel), its summary and its SASS
# with warp-stall samples per instruction, for each TYPE:N given. Written for the questions
# docs/tuning.md leaves open ('bfloat16 from 2^24 to 2^26 is unexplained', the one-block fixed
# costs). First run 2026-11-26 (H200).
#   benchmark/probes/exact_ncu_source.sh OUT_DIR [TYPE:N ...]   (default bf16:16777216
#                                                                f16:16777216 f32:1024 f64:1048576
#                                                                f64:4194304)
# From the repository root, with the library built in build-gpu/ (test/run_gpu_suite.sh builds it)
# and ncu on the PATH. Per case: OUT_DIR/details_TYPE_N.txt (launch, occupancy, stall reasons),
# OUT_DIR/sass_TYPE_N.csv (the source page), and the 25 instructions with the most stall samples.
# About 30-60 s a case on an H100 (an estimate: ncu replays the kernel ~40 times).
set -uo pipefail
out=${1:?usage: benchmark/probes/exact_ncu_source.sh OUT_DIR [TYPE:N ...]}
shift
cases=("$@")
[[ ${#cases[@]} -eq 0 ]] && cases=(bf16:16777216 f16:16777216 f32:1024 f64:1048576 f64:4194304)
mkdir -p "$out"
probe=$out/exact-probe
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Iinclude benchmark/probes/h100-2026-11-25-exact-probe.cu \
  -o "$probe" -Lbuild-gpu -lgpureduce || exit 1
for c in "${cases[@]}"; do
  type=${c%%:*} n=${c##*:} name=${c/:/_}
  # The probe's `ncu` mode makes three correctly rounded calls: skip two, profile the third.
  ncu --set full --import-source yes -k regex:exact_automatic_kernel --launch-skip 2 \
    --launch-count 1 -f -o "$out/$name" "$probe" ncu "$type" "$n" > "$out/ncu_$name.log" 2>&1 ||
    { tail -5 "$out/ncu_$name.log"; continue; }
  ncu -i "$out/$name.ncu-rep" --page details > "$out/details_$name.txt" 2>&1
  ncu -i "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/sass_$name.csv" 2>&1
  echo "== $name"
  grep -E "Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Block Limit|Executed Instructions  " \
    "$out/details_$name.txt" | head -12
  python3 - "$out/sass_$name.csv" <<'EOF'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
lines = [l for l in lines if not l.startswith('"Kernel Name"')]  # ncu 2025.3 puts one before the header
rows = list(csv.DictReader(lines))
if not rows: sys.exit(0)
key = next((k for k in rows[0] if k and "Warp Stall Sampling (All" in k), None)
if key is None: print("no stall-sampling column:", list(rows[0])[:12]); sys.exit(0)
num = lambda r: float((r.get(key) or "0").replace(",", "") or 0)
total = sum(num(r) for r in rows) or 1
for r in sorted(rows, key=num, reverse=True)[:25]:
    print(f"{100 * num(r) / total:5.1f}%  {r.get('Address', ''):>6}  {r.get('Source', '')[:90]}")
EOF
done
