#!/usr/bin/env python3
"""Plot gpureduce_level1_paired's CSV: gpureduce / competitor against n, a line per op.

    python3 benchmark/level1_plot.py RESULTS-level1.csv OUT.png

The CSV's columns: op, competitor, n, competitor_us, gpureduce_us, gbps, pct_peak, ratio, floor_us.
One PNG: the paired ratio per op (log2 n), the issue's targets (1.00 everywhere, 0.70 from 2^14 to
2^22 items) and, dotted in each op's colour, floor / competitor (an empty launch plus the input
read at the theoretical bandwidth, over the competitor's time): below that line no ratio is
reachable in this harness. Needs matplotlib (exits 3 without it).
"""
import csv
import sys
from collections import OrderedDict

from report import format_n_axis  # report.py's log2 n axis (this script's folder is on sys.path)

MID_TARGET = (2 ** 14, 2 ** 22, 0.70)  # from, to, target ratio
TARGET = 1.00


def load(path):
    """OrderedDict op -> (competitor, [(n, ratio, floor / competitor)] sorted by n), in file order."""
    series = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            n, competitor_us = int(row["n"]), float(row["competitor_us"])
            floor_ratio = float(row["floor_us"]) / competitor_us if competitor_us > 0 else None
            series.setdefault(row["op"], (row["competitor"], []))[1].append((n, float(row["ratio"]), floor_ratio))
    for _, points in series.values():
        points.sort()
    return series


def plot(series, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 6))
    for k, (op, (competitor, points)) in enumerate(series.items()):
        color = "C%d" % (k % 10)
        ns = [p[0] for p in points]
        ax.plot(ns, [p[1] for p in points], color=color, marker="o", markersize=3,
                label="%s / %s" % (op, competitor))
        floors = [(p[0], p[2]) for p in points if p[2] is not None]
        if floors:
            ax.plot([p[0] for p in floors], [p[1] for p in floors], color=color, linestyle=":", linewidth=1)
    lo, hi, mid = MID_TARGET
    ax.axhline(TARGET, color="black", linewidth=1.2, linestyle="--", label="target 1.00")
    ax.hlines(mid, lo, hi, color="black", linewidth=1.2, linestyle="-.", label="target 0.70 (2^14 to 2^22)")
    format_n_axis(ax, [p[0] for _, points in series.values() for p in points])
    ax.set_ylabel("gpureduce time / competitor time (paired median; below 1: faster)")
    ax.set_title("Level-1 reductions against CUB and cuBLAS (dotted: floor / competitor)")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    series = load(argv[1])
    if not series:
        print("level1_plot.py: no rows in %s" % argv[1], file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("level1_plot.py: matplotlib is missing; no plot written", file=sys.stderr)
        return 3
    plot(series, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
