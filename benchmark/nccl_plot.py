#!/usr/bin/env python3
"""Plot gpureduce_nccl_bench's CSV: time per call against total n, for 1 and 2 GPUs.

    python3 benchmark/nccl_plot.py RESULTS.csv OUT_STEM

writes OUT_STEM.png (time, log-log, a line per contender and GPU count) and OUT_STEM.md (the
table: us per call, and the ratios: gpureduce / (CUB + ncclAllReduce) on the same GPUs, N GPUs /
1 GPU, correctly rounded / default). Lines starting with '#' (the correctly rounded bits per GPU
count) are skipped here and copied into the table's notes.
"""
import csv
import sys
from collections import defaultdict


def load(path):
    times = defaultdict(dict)  # (gpus, contender) -> {n: us}
    for row in csv.DictReader(line for line in open(path) if not line.startswith("#")):
        times[(int(row["gpus"]), row["contender"])][int(row["n"])] = float(row["median_us"])
    return times


def table(times):
    sizes = sorted({n for series in times.values() for n in series})
    gpus = sorted({g for g, _ in times})
    lines = ["| n | GPUs | CUB+allreduce us | gpureduce us | exact us | gpureduce / CUB+allreduce | "
             "exact / gpureduce | gpureduce: these GPUs / 1 GPU |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        for g in gpus:
            base, ours, exact = (times[(g, c)].get(n) for c in ("cub+allreduce", "gpureduce", "gpureduce_exact"))
            one = times[(1, "gpureduce")].get(n)
            scale = f"{ours / one:.3f}" if g > 1 and ours and one else "-"
            fmt = lambda v: f"{v:.2f}" if v else "-"
            ratio = lambda a, b: f"{a / b:.3f}" if a and b else "-"
            lines.append(f"| {n} | {g} | {fmt(base)} | {fmt(ours)} | {fmt(exact)} | {ratio(ours, base)} | "
                         f"{ratio(exact, ours)} | {scale} |")
    return "\n".join(lines) + "\n"


def plot(times, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    styles = {"cub+allreduce": "k", "gpureduce": "tab:blue", "gpureduce_exact": "tab:purple"}
    fig, ax = plt.subplots(figsize=(8, 5))
    for (g, contender), series in sorted(times.items()):
        ns = sorted(series)
        ax.plot(ns, [series[n] for n in ns], color=styles.get(contender, "gray"),
                linestyle={1: "--", 2: "-", 4: "-.", 8: ":"}.get(g, "-"), marker="o", markersize=3,
                label=f"{contender}, {g} GPU{'s' if g > 1 else ''}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("total n (floats)")
    ax.set_ylabel("us per call (slowest rank)")
    ax.set_title("float sum of a sharded array, every rank gets the result")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    times = load(argv[1])
    notes = [line[1:].strip() for line in open(argv[1]) if line.startswith("#")]
    open(argv[2] + ".md", "w").write(table(times) + "".join(f"\n- {n}" for n in notes) + "\n")
    plot(times, argv[2] + ".png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
