#!/usr/bin/env python3
"""Tables of correctly rounded sums against CUB from gpureduce_bench JSON (one file per run):

    correctly_rounded_report.py RUN1.json [RUN2.json ...] > OUT.md

The JSON comes from gpureduce_bench --modes=stream,graph,paired with the filter in
docs/benchmarking.md ('Correctly rounded sums'). Three tables, the first run's numbers with the
later runs' CR / CUB beside them: stream (median µs per call), graph (µs per reduction, 100
captured back to back) and paired (the median of per-iteration ratios, A and CUB alternated).
Write the header (device, library, command) above it by hand.
"""
import json
import re
import sys

CR = "automatic/automatic+correctly_rounded"
AUTOMATIC = "automatic/automatic"


def load(path):
    """{(family, type, n, contender): benchmark} of one run."""
    cases = {}
    for b in json.load(open(path))["benchmarks"]:
        m = re.match(r"(graph/|paired/)?sum/(\w+)/n:(\d+)/(.+?)(/min_time:[0-9.]+)?/manual_time$", b["name"])
        if m:
            family = (m.group(1) or "stream/").rstrip("/")
            cases[(family, m.group(2), int(m.group(3)), m.group(4))] = b
    return cases


def keys(run, family):
    order = {"f32": 0, "f64": 1, "f16": 2, "bf16": 3}
    found = {(t, n) for (f, t, n, _) in run if f == family}
    return sorted(found, key=lambda k: (order.get(k[0], 9), k[1]))


def timed_table(runs, family, title):
    first = runs[0]
    print(f"\n## {title}\n")
    later = " | ".join(f"run {i + 2}: CR / CUB" for i in range(len(runs) - 1))
    print("| type | n | CUB µs | CR µs | GB/s | CR / CUB | automatic / CUB |" + (f" {later} |" if later else ""))
    print("|---|---:|---:|---:|---:|---:|---:|" + "---:|" * (len(runs) - 1))
    for t, n in keys(first, family):
        cub, cr, auto = (first.get((family, t, n, c)) for c in ("cub", CR, AUTOMATIC))
        if not (cub and cr and auto):
            continue
        us = lambda b: b["median_us"] if family == "stream" else b["real_time"]
        size = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}[t]
        cells = [f"{us(cub):.2f}", f"{us(cr):.2f}", f"{n * size / us(cr) / 1e3:.1f}",
                 f"{us(cr) / us(cub):.3f}", f"{us(auto) / us(cub):.3f}"]
        for run in runs[1:]:
            c2, r2 = run.get((family, t, n, "cub")), run.get((family, t, n, CR))
            cells.append(f"{us(r2) / us(c2):.3f}" if c2 and r2 else "-")
        print(f"| {t} | {n} | " + " | ".join(cells) + " |")


def paired_table(runs):
    first = runs[0]
    print("\n## paired (median of per-iteration ratios)\n")
    later = " | ".join(f"run {i + 2}: CR / CUB" for i in range(len(runs) - 1))
    print("| type | n | CUB µs | CR µs | CR / CUB | p10-p90 | automatic / CUB |" + (f" {later} |" if later else ""))
    print("|---|---:|---:|---:|---:|---|---:|" + "---:|" * (len(runs) - 1))
    for t, n in keys(first, "paired"):
        cr, auto = (first.get(("paired", t, n, c)) for c in ("correctly_rounded_vs_cub", "automatic_vs_cub"))
        if not cr:
            continue
        cells = [f"{cr['b_median_us']:.2f}", f"{cr['a_median_us']:.2f}", f"{cr['ratio_median']:.3f}",
                 f"{cr['ratio_p10']:.2f}-{cr['ratio_p90']:.2f}", f"{auto['ratio_median']:.3f}" if auto else "-"]
        for run in runs[1:]:
            r2 = run.get(("paired", t, n, "correctly_rounded_vs_cub"))
            cells.append(f"{r2['ratio_median']:.3f}" if r2 else "-")
        print(f"| {t} | {n} | " + " | ".join(cells) + " |")


def main():
    runs = [load(p) for p in sys.argv[1:]]
    if not runs:
        sys.exit(__doc__)
    timed_table(runs, "stream", "stream (median µs per call)")
    timed_table(runs, "graph", "graph (µs per reduction)")
    paired_table(runs)


if __name__ == "__main__":
    main()
