#!/usr/bin/env python3
"""Plot gpureduce_segmented_paired's CSV: GB/s against segment size, gpureduce and CUB.

    python3 benchmark/segmented_plot.py RESULTS-segmented.csv OUT.png

The CSV's columns: table, shape, segments, segment_size, items, bytes, gpureduce_us, competitor_us,
ratio, target. The sweep's rows (segment_size > 0) become four lines: gpureduce and CUB with offset
arrays, gpureduce and CUB (counting-iterator offsets) for fixed-size segments; GB/s counts items,
offsets and outputs over each one's time. Needs matplotlib (exits 3 without it).
"""
import csv
import sys


def load(path):
    """table -> sorted [(segment_size, gpureduce GB/s, competitor GB/s)] for the sweep's rows."""
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            size = int(row["segment_size"])
            if size <= 0 or not row["table"].startswith("Segment size sweep"):
                continue
            nbytes = float(row["bytes"])
            ours = nbytes / (float(row["gpureduce_us"]) * 1e3)
            theirs = nbytes / (float(row["competitor_us"]) * 1e3)
            series.setdefault(row["table"], []).append((size, ours, theirs))
    for points in series.values():
        points.sort()
    return series


def plot(series, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 6))
    for k, (table, points) in enumerate(sorted(series.items())):
        color = "C%d" % k
        sizes = [p[0] for p in points]
        ax.plot(sizes, [p[1] for p in points], color=color, marker="o", markersize=3,
                label="gpureduce, " + table)
        ax.plot(sizes, [p[2] for p in points], color=color, linestyle="--", marker="x",
                markersize=3, label="CUB, " + table)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("segment size (float items; 2^26 items in all)")
    ax.set_ylabel("GB/s (items + offsets + outputs over the call's time)")
    ax.set_title("Segmented float sums: gpureduce against cub::DeviceSegmentedReduce")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("segmented_plot.py: matplotlib is not installed", file=sys.stderr)
        return 3
    series = load(argv[1])
    if not series:
        print("segmented_plot.py: no sweep rows in " + argv[1], file=sys.stderr)
        return 1
    plot(series, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
