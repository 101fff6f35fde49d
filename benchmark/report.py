#!/usr/bin/env python3
"""Turns gpureduce_bench's Google Benchmark JSON into the files kept in benchmark/results/.

    report.py BENCH.json --device h100 --date 2026-11-22 --out benchmark/results \
        [--command "the exact command used"] [--ladder ladder-f32.txt ...]

writes, in --out:
    <device>-<date>.json  the input, copied as it is
    <device>-<date>.csv   device,type,op,n,contender,time_us,gbps: one row per measured case
    <device>-<date>.md    per case: n, us, GB/s, % of peak and time relative to CUB for every
                          contender, L2-resident sizes marked; automatic vs CUB per n; the ladder
                          outputs given with --ladder, verbatim
    <device>-<date>.png   GB/s against n (log x), one line per contender, one panel per case

The CSV and Markdown need only the standard library; the plot needs matplotlib, imported last so
the other files are written even where it is missing (the script then exits 3 and says so).
"""

import argparse
import csv
import json
import os
import re
import shutil
import sys
from collections import OrderedDict

TIME_UNIT_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# Suffixes Google Benchmark appends to a benchmark's name; none of them is part of the case.
NAME_SUFFIXES = re.compile(r"(/manual_time|/real_time|/min_time:[^/]*|/repeats:[^/]*|/iterations:[^/]*|/threads:[^/]*)+$")


def parse_name(name):
    """'sum/f32/n:1024/vectorized/last_block/manual_time' -> ('sum', 'f32', 1024, 'vectorized/last_block')."""
    base = NAME_SUFFIXES.sub("", name)
    parts = base.split("/")
    if len(parts) < 4 or not parts[2].startswith("n:"):
        return None
    try:
        n = int(parts[2][2:])
    except ValueError:
        return None
    return parts[0], parts[1], n, "/".join(parts[3:])


def load_results(data):
    """One result per (op, type, n, contender): the median aggregate when the run used
    repetitions, else the mean of its iteration entries. Errors are kept, marked."""
    grouped = OrderedDict()
    for b in data.get("benchmarks", []):
        key = parse_name(b.get("run_name") or b.get("name", ""))
        if key is None:
            continue
        entry = grouped.setdefault(key, {"iterations": [], "median": None, "error": None})
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message", "error")
        elif b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                entry["median"] = b
        else:
            entry["iterations"].append(b)

    results = []
    for (op, typ, n, contender), e in grouped.items():
        row = {"op": op, "type": typ, "n": n, "contender": contender, "error": e["error"]}
        picked = [e["median"]] if e["median"] else e["iterations"]
        if picked and not e["error"]:
            def mean(f):
                return sum(f(b) for b in picked) / len(picked)
            row["time_us"] = mean(lambda b: b["real_time"] * TIME_UNIT_TO_US[b.get("time_unit", "ns")])
            row["gbps"] = mean(lambda b: b.get("bytes_per_second", 0.0)) / 1e9
            pct = [b["pct_peak_bw"] for b in picked if "pct_peak_bw" in b]
            row["pct_peak"] = sum(pct) / len(pct) if pct else None
            row["l2_resident"] = any(b.get("l2_resident", 0) >= 0.5 for b in picked)
        results.append(row)
    return results


def cases_in_order(results):
    cases = OrderedDict()
    for r in results:
        cases.setdefault((r["op"], r["type"]), []).append(r)
    return cases


def measured(rows):
    return [r for r in rows if r.get("time_us") is not None and not r["error"]]


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def write_csv(path, device, results):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["device", "type", "op", "n", "contender", "time_us", "gbps"])
        for r in measured(results):
            w.writerow([device, r["type"], r["op"], r["n"], r["contender"],
                        "%.3f" % r["time_us"], "%.2f" % r["gbps"]])


def cub_times(rows):
    return {r["n"]: r["time_us"] for r in measured(rows) if r["contender"] == "cub"}


def summary_lines(case, rows):
    """automatic vs CUB per n: the numbers the results' closing note quotes."""
    op, typ = case
    cub = cub_times(rows)
    by = {(r["contender"], r["n"]): r for r in measured(rows)}
    lines = ["### %s %s: automatic vs CUB" % (op, typ), "",
             "| n | CUB µs | automatic µs | automatic / CUB | +zeroed µs | +zeroed / CUB | thrust µs | thrust / CUB |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sorted({r["n"] for r in rows}):
        c = cub.get(n)
        cells = []
        for name in ("automatic/automatic", "automatic/automatic+zeroed", "thrust"):
            r = by.get((name, n))
            t = r["time_us"] if r else None
            cells += [fmt(t, ".2f"), fmt(t / c if t and c else None, ".2f")]
        resident = any(r.get("l2_resident") for r in rows if r["n"] == n)
        lines.append("| %d%s | %s | %s |" % (n, " (L2)" if resident else "", fmt(c, ".2f"), " | ".join(cells)))
    return lines


def case_table_lines(case, rows):
    op, typ = case
    cub = cub_times(rows)
    lines = ["### %s %s: every contender" % (op, typ), "",
             "| n | contender | µs | GB/s | % of peak | time / CUB |", "|---:|---|---:|---:|---:|---:|"]
    for n in sorted({r["n"] for r in rows}):
        for r in (r for r in rows if r["n"] == n):
            if r["error"]:
                lines.append("| %d | %s | error: %s | | | |" % (n, r["contender"], r["error"].replace("|", "/")))
                continue
            if r.get("time_us") is None:
                continue
            c = cub.get(n)
            lines.append("| %d%s | %s | %.2f | %.1f | %s | %s |" % (
                n, " (L2)" if r.get("l2_resident") else "", r["contender"], r["time_us"], r["gbps"],
                fmt(r.get("pct_peak"), ".1f"), fmt(r["time_us"] / c if c else None, ".2f")))
    return lines


def write_markdown(path, args, device, context, results):
    cases = cases_in_order(results)
    out = ["# gpureduce benchmarks: %s, %s" % (device, args.date), ""]
    if args.command:
        out += ["Command:", "", "```sh", args.command, "```", ""]
    for key, label in (("versions", "Versions"), ("gpu_peak_bandwidth", "Theoretical bandwidth"),
                       ("gpu_l2_bytes", "L2 bytes"), ("l2_flush", "L2 flush"), ("timing", "Timing"),
                       ("thrust_note", "Thrust"), ("inputs", "Inputs"), ("input_seed", "Input seed"),
                       ("date", "Run at"), ("host_name", "Host")):
        if key in context:
            out.append("- %s: %s" % (label, context[key]))
    out += ["",
            "Times are GPU time from CUDA events, in µs; GB/s counts input bytes read (1 GB = 1e9 B); "
            "`time / CUB` below 1 means faster than `cub::DeviceReduce`. Sizes marked (L2) fit in "
            "the L2 cache and were not flushed: their GB/s is cache bandwidth, not HBM.", "",
            "## Automatic vs CUB", ""]
    for case, rows in cases.items():
        out += summary_lines(case, rows) + [""]
    if args.ladder:
        out += ["## The ladder", ""]
        for path_ in args.ladder:
            with open(path_) as f:
                out += ["`%s`:" % os.path.basename(path_), "", "```", f.read().rstrip("\n"), "```", ""]
    out += ["## Every contender", ""]
    for case, rows in cases.items():
        out += case_table_lines(case, rows) + [""]
    errors = [r for r in results if r["error"]]
    if errors:
        out += ["## Errors", ""] + ["- %s/%s/n:%d/%s: %s" % (r["op"], r["type"], r["n"], r["contender"], r["error"])
                                    for r in errors] + [""]
    with open(path, "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")


def write_plot(path, device, date, results):
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is required for the plot: pip install matplotlib", file=sys.stderr)
        return False
    matplotlib.use("Agg")  # no display on GPU machines
    import matplotlib.pyplot as plt

    cases = [(c, measured(rows)) for c, rows in cases_in_order(results).items()]
    cases = [(c, rows) for c, rows in cases if rows]
    if not cases:
        print("report.py: nothing measured, no plot", file=sys.stderr)
        return True
    cols = 2 if len(cases) > 1 else 1
    nrows = (len(cases) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(9 * cols, 6 * nrows), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, ((op, typ), rows) in zip(axes.flat, cases):
        contenders = list(OrderedDict.fromkeys(r["contender"] for r in rows))
        cmap = matplotlib.colormaps["tab20"] if hasattr(matplotlib, "colormaps") else plt.get_cmap("tab20")
        resident = [r["n"] for r in rows if r.get("l2_resident")]
        if resident:
            ax.axvspan(min(r["n"] for r in rows), max(resident), color="0.92", zorder=0,
                       label="L2-resident (cache bandwidth)")
        for i, name in enumerate(contenders):
            pts = sorted((r["n"], r["gbps"]) for r in rows if r["contender"] == name)
            highlight = name in ("cub", "thrust", "automatic/automatic", "automatic/automatic+zeroed")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                    linestyle=styles[(i // 20) % len(styles)], color="black" if name == "cub" else cmap(i % 20),
                    linewidth=2.5 if highlight else 1.0, label=name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (input bytes read)")
        ax.set_title("%s %s" % (op, typ))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2 if len(contenders) > 12 else 1, loc="upper left")
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    fig.suptitle("gpureduce vs CUB and Thrust: %s, %s" % (device, date))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", help="gpureduce_bench --benchmark_out=FILE --benchmark_out_format=json output")
    p.add_argument("--device", required=True, help="short device name for the file names, e.g. h100")
    p.add_argument("--date", required=True, help="date for the file names, e.g. 2026-11-22")
    p.add_argument("--out", default=".", help="output folder (created if missing)")
    p.add_argument("--command", help="the exact command that produced the JSON, quoted in the .md")
    p.add_argument("--ladder", action="append", default=[], help="a gpureduce_ladder output to include (repeatable)")
    args = p.parse_args(argv)

    with open(args.json) as f:
        data = json.load(f)
    context = data.get("context", {})
    # The CSV's device column names the GPU as the benchmark saw it; the file names use --device.
    device = context.get("gpu", args.device)
    results = load_results(data)
    if not results:
        print("report.py: no gpureduce_bench results in %s" % args.json, file=sys.stderr)
        return 1

    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, "%s-%s" % (args.device, args.date))
    if os.path.abspath(args.json) != os.path.abspath(stem + ".json"):
        shutil.copyfile(args.json, stem + ".json")
    write_csv(stem + ".csv", device, results)
    write_markdown(stem + ".md", args, device, context, results)
    for case, rows in cases_in_order(results).items():
        print("\n".join(summary_lines(case, rows)) + "\n")
    print("wrote %s.json, %s.csv, %s.md" % (stem, stem, stem))
    if not write_plot(stem + ".png", device, args.date, results):
        return 3
    print("wrote %s.png" % stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
