#!/usr/bin/env python3
"""Turns gpureduce_bench's Google Benchmark JSON into the files kept in benchmark/results/.

    report.py BENCH.json --device h100 --date 2026-11-22 --out benchmark/results \
        [--command "the exact command used"] [--ladder ladder-f32.txt ...] [--overhead overhead.txt]

writes, in --out:
    <device>-<date>.json  the input, copied as it is
    <device>-<date>.csv   device,type,op,n,contender,time_us,gbps,mode: one row per measured case;
                          mode is stream (one call between events) or graph (graph/... names: per
                          reduction, 100 reductions per CUDA graph replay); the paired family is not
                          in it (its benchmarks time two contenders each)
    <device>-<date>.md    automatic vs CUB per n (stream, with automatic's launch plan; then graph),
                          with the floor (the `floor` contender's empty launch + the input bytes at
                          the theoretical bandwidth) and floor / CUB where the JSON has `floor`;
                          where the JSON has paired/... entries, the paired small-n comparison (A =
                          automatic or automatic+zeroed and B = CUB alternated call by call: A's and
                          B's medians and the median and p10-p90 of the per-iteration ratios A/B);
                          the ladder outputs given with --ladder and gpureduce_overhead's output
                          given with --overhead, verbatim; per case: n, us, p10-p90,
                          GB/s, % of peak and time relative to CUB for every contender, L2-resident
                          sizes marked
    <device>-<date>.png   GB/s against n (log x), one line per contender, one panel per case and mode

Times are the median of the iterations (the median_us counter) where the JSON has it, else Google
Benchmark's real_time (a mean); GB/s and % of peak follow the same time. JSON from before those
counters (e.g. results/h200-2026-11-21.json) still reads: every time is then the mean, and without
`floor` entries the floor columns are left out.

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
# Bytes per input element, by the type names in benchmark names.
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "u32": 4, "f64": 8, "i64": 8, "u64": 8}
# The contender that is no reduction: one empty kernel launch per call (gpureduce_bench's floor).
FLOOR = "floor"
# The other contender that is no reduction: one launch that only reads the input (gpureduce_bench's
# read), sums only.
READ = "read"
# From this many input bytes the read floor table lists a size (above the H200's 60 MiB L2 at 2^24
# floats: a read there is HBM bandwidth, which is what the table is about).
READ_TABLE_MIN_BYTES = 64 << 20
# Name prefixes of the families other than stream (whose names have none).
MODE_PREFIXES = ("graph", "paired")
# The paired family's benchmarks (the last part of their names), in table order, with A's name.
PAIRED_A = OrderedDict([("automatic_vs_cub", "automatic"), ("zeroed_vs_cub", "automatic+zeroed")])
# Suffixes Google Benchmark appends to a benchmark's name; none of them is part of the case.
NAME_SUFFIXES = re.compile(r"(/manual_time|/real_time|/min_time:[^/]*|/repeats:[^/]*|/iterations:[^/]*|/threads:[^/]*)+$")


# The label part gpureduce_bench writes for gpureduce contenders: "plan: <text>" up to the next ';'.
PLAN_IN_LABEL = re.compile(r"(?:^|;\s*)plan: ([^;]+)")


def parse_name(name):
    """'sum/f32/n:1024/vectorized/last_block/manual_time' -> ('stream', 'sum', 'f32', 1024, 'vectorized/last_block');
    'graph/sum/f32/n:1024/cub/min_time:0.002/manual_time' -> ('graph', 'sum', 'f32', 1024, 'cub');
    'paired/sum/f32/n:1024/automatic_vs_cub/min_time:0.050/manual_time'
        -> ('paired', 'sum', 'f32', 1024, 'automatic_vs_cub')."""
    base = NAME_SUFFIXES.sub("", name)
    parts = base.split("/")
    mode = "stream"
    if parts and parts[0] in MODE_PREFIXES:
        mode, parts = parts[0], parts[1:]
    if len(parts) < 4 or not parts[2].startswith("n:"):
        return None
    try:
        n = int(parts[2][2:])
    except ValueError:
        return None
    return mode, parts[0], parts[1], n, "/".join(parts[3:])


def plan_of(b):
    """The launch plan of a gpureduce contender: the label's text, else built from the plan_*
    counters, else None (CUB, Thrust, or JSON from before plans were recorded)."""
    m = PLAN_IN_LABEL.search(b.get("label", ""))
    if m:
        return m.group(1).strip()
    if "plan_grid" in b:
        launches = int(b.get("plan_launches", 0))
        return "grid %d x %d, %d items/thread, %d launch%s" % (
            b["plan_grid"], b.get("plan_block", 0), b.get("plan_items_per_thread", 0),
            launches, "" if launches == 1 else "es")
    return None


def group_entries(data):
    """[((mode, op, type, n, contender), entries, error)] in the JSON's order: entries are the median
    aggregate when the run used repetitions, else its iteration entries; error is the message of a
    failed one (else None)."""
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
    return [(key, [e["median"]] if e["median"] else e["iterations"], e["error"])
            for key, e in grouped.items()]


def load_results(data):
    """One result per (mode, op, type, n, contender) of the stream and graph families: the median
    aggregate when the run used repetitions, else the mean of its iteration entries. Errors are
    kept, marked. The paired family is read by load_paired."""
    results = []
    for (mode, op, typ, n, contender), picked, error in group_entries(data):
        if mode == "paired":
            continue
        row = {"mode": mode, "op": op, "type": typ, "n": n, "contender": contender, "error": error}
        if picked and not error:
            def mean(f):
                return sum(f(b) for b in picked) / len(picked)

            def real_us(b):
                return b["real_time"] * TIME_UNIT_TO_US[b.get("time_unit", "ns")]

            def time_us(b):  # the median where recorded: one slow iteration does not move it
                return b["median_us"] if b.get("median_us") else real_us(b)

            # bytes_per_second and pct_peak_bw are Google Benchmark's, from the mean time: rescale
            # them to the time shown.
            row["time_us"] = mean(time_us)
            row["stat"] = "median" if all(b.get("median_us") for b in picked) else "mean"
            row["gbps"] = mean(lambda b: b.get("bytes_per_second", 0.0) * real_us(b) / time_us(b)) / 1e9
            pct = [b["pct_peak_bw"] * real_us(b) / time_us(b) for b in picked if "pct_peak_bw" in b]
            row["pct_peak"] = sum(pct) / len(pct) if pct else None
            p10 = [b["p10_us"] for b in picked if "p10_us" in b]
            p90 = [b["p90_us"] for b in picked if "p90_us" in b]
            row["p10_us"] = sum(p10) / len(p10) if p10 else None
            row["p90_us"] = sum(p90) / len(p90) if p90 else None
            row["l2_resident"] = any(b.get("l2_resident", 0) >= 0.5 for b in picked)
        plans = [p for p in (plan_of(b) for b in picked) if p]
        row["plan"] = plans[0] if plans else None
        results.append(row)
    return results


PAIRED_COUNTERS = ("a_median_us", "b_median_us", "ratio_median", "ratio_p10", "ratio_p90")


def load_paired(data):
    """One row per paired benchmark (mode 'paired', contender = its last name part, e.g.
    'automatic_vs_cub'): the counters of PAIRED_COUNTERS from the median aggregate when the run used
    repetitions, else the mean over its iteration entries (None where missing). Errors are kept."""
    rows = []
    for (mode, op, typ, n, pair), picked, error in group_entries(data):
        if mode != "paired":
            continue
        row = {"mode": mode, "op": op, "type": typ, "n": n, "contender": pair, "error": error,
               "l2_resident": any(b.get("l2_resident", 0) >= 0.5 for b in picked)}
        for k in PAIRED_COUNTERS:
            values = [b[k] for b in picked if k in b] if not error else []
            row[k] = sum(values) / len(values) if values else None
        rows.append(row)
    return rows


def cases_in_order(results, mode=None):
    """{(op, type): rows} for one mode, or {(mode, op, type): rows} for all when mode is None."""
    cases = OrderedDict()
    for r in results:
        if mode is None:
            cases.setdefault((r["mode"], r["op"], r["type"]), []).append(r)
        elif r["mode"] == mode:
            cases.setdefault((r["op"], r["type"]), []).append(r)
    return cases


def case_title(mode, op, typ):
    return "%s%s %s" % ("graph " if mode == "graph" else "", op, typ)


def measured(rows):
    return [r for r in rows if r.get("time_us") is not None and not r["error"]]


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def write_csv(path, device, results):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        # mode last, so readers of the old seven columns by position still work
        w.writerow(["device", "type", "op", "n", "contender", "time_us", "gbps", "mode"])
        for r in measured(results):
            w.writerow([device, r["type"], r["op"], r["n"], r["contender"],
                        "%.3f" % r["time_us"], "%.2f" % r["gbps"], r["mode"]])


def cub_times(rows):
    return {r["n"]: r["time_us"] for r in measured(rows) if r["contender"] == "cub"}


def peak_bytes_per_second(context):
    """The theoretical DRAM bandwidth gpureduce_bench recorded ("4814.3 GB/s"), in B/s; None when
    missing or "unknown"."""
    m = re.match(r"\s*([0-9.]+)\s*GB/s", context.get("gpu_peak_bandwidth", ""))
    return float(m.group(1)) * 1e9 if m and float(m.group(1)) > 0 else None


def has_floor(rows):
    return any(r["contender"] == FLOOR for r in measured(rows))


def mode_has_floor(cases):
    """Whether any case of a mode has floor times: then all its tables get the floor columns ('-'
    where missing), else none do (JSON from before the floor contender)."""
    return any(has_floor(rows) for rows in cases.values())


def floor_times(rows, typ, peak):
    """{n: floor µs}: the floor contender's time at n (one empty launch) plus n elements read once
    at the theoretical bandwidth; the launch alone where the bandwidth or element size is unknown."""
    size = ELEM_BYTES.get(typ)
    out = {}
    for r in measured(rows):
        if r["contender"] == FLOOR:
            read_us = r["n"] * size / peak * 1e6 if size and peak else 0.0
            out[r["n"]] = r["time_us"] + read_us
    return out


FLOOR_TEXT = (
    "`floor µs` is the fastest any one-launch reduction could be in this harness: the `floor` "
    "contender's time at that n (one launch of an empty kernel, 1 block of 32 threads, timed the "
    "same way in the same run) plus reading the input once at the theoretical DRAM bandwidth "
    "(%s). `floor / CUB` is that over CUB's time: a target ratio (time / CUB) below it is "
    "unreachable in this harness on this machine. The read term uses DRAM bandwidth; an input "
    "marked (L2) may be read from L2 faster than that, so there the true minimum can be somewhat "
    "below the floor, but at the small sizes the launch term dominates anyway (1M floats, 4 MiB, "
    "take 0.9 µs at 4.8 TB/s). The `floor` contender's time alone (under Every contender) is a "
    "bound that assumes no bandwidth at all.")


READ_TEXT = (
    "The `read` contender is one launch of a kernel that reads the input once with 16-byte loads, "
    "8 in flight per thread, one wave of 512-thread blocks, and reduces nothing: how fast this "
    "machine reads these bytes, in this run, as fast as we know how to read them. Where the time is "
    "bandwidth it is the floor that counts for `% of peak` targets: a reduction must read every "
    "byte too. `automatic / read` and `CUB / read` are times over its time.")


def read_lines(case, rows):
    """Per n from READ_TABLE_MIN_BYTES up: the read floor against automatic and CUB (stream family,
    sums); [] when the case has no read contender there."""
    op, typ = case
    size = ELEM_BYTES.get(typ)
    by = {(r["contender"], r["n"]): r for r in measured(rows)}
    ns = sorted(n for (name, n) in by if name == READ and size and n * size >= READ_TABLE_MIN_BYTES)
    if not ns:
        return []
    lines = ["### %s %s: reading the input alone" % (op, typ), "",
             "| n | read µs | read GB/s | read % of peak | automatic µs | automatic % of peak | "
             "automatic / read | CUB µs | CUB % of peak | CUB / read |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in ns:
        rd, a, c = by.get((READ, n)), by.get(("automatic/automatic", n)), by.get(("cub", n))
        t = lambda r: r["time_us"] if r else None
        ratio = lambda r: fmt(t(r) / rd["time_us"] if r else None, ".3f")
        lines.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, fmt(rd["time_us"], ".2f"), fmt(rd.get("gbps"), ".1f"), fmt(rd.get("pct_peak"), ".1f"),
            fmt(t(a), ".2f"), fmt(a.get("pct_peak") if a else None, ".1f"), ratio(a),
            fmt(t(c), ".2f"), fmt(c.get("pct_peak") if c else None, ".1f"), ratio(c)))
    return lines


def ratio_cells(by, names, n, cub):
    """µs and time / CUB for each contender in names at n ('-' where missing, 'error' where it
    failed: the message is in the Errors section)."""
    cells = []
    for name in names:
        r = by.get((name, n))
        t = r.get("time_us") if r and not r["error"] else None
        cells += ["error" if r and r["error"] else fmt(t, ".2f"), fmt(t / cub if t and cub else None, ".2f")]
    return cells


def floor_cells(floors, n, cub):
    """floor µs and floor / CUB at n ('-' where either is missing)."""
    f = floors.get(n)
    return [fmt(f, ".2f"), fmt(f / cub if f is not None and cub else None, ".2f")]


# What the automatic-vs-CUB table of each mode shows besides automatic and +zeroed: its title,
# whether thrust has columns (it cannot be captured into a graph) and whether the launch plan
# automatic used closes each row.
SUMMARY_MODES = {
    "stream": {"title": "### %s %s: automatic vs CUB", "thrust": True, "plan": True},
    "graph": {"title": "### graph %s %s: automatic vs CUB, per reduction", "thrust": False, "plan": False},
}


def summary_lines(mode, case, rows, peak=None, with_floor=None):
    """Automatic vs CUB per n for one case of mode 'stream' (one call between events; with thrust
    and the launch plan automatic used: the numbers the results' closing note quotes) or 'graph'
    (per reduction, replayed 100 to a graph); with the floor (one empty launch, or one empty kernel
    per graph node, + the read) where the JSON has the floor contender."""
    spec = SUMMARY_MODES[mode]
    op, typ = case
    cub = cub_times(rows)
    by = {(r["contender"], r["n"]): r for r in rows}
    plans = {r["n"]: r["plan"] for r in rows if r["contender"] == "automatic/automatic" and r.get("plan")}
    if with_floor is None:
        with_floor = has_floor(rows)
    floors = floor_times(rows, typ, peak) if with_floor else None
    names = ("automatic/automatic", "automatic/automatic+zeroed") + (("thrust",) if spec["thrust"] else ())
    header = "| n | CUB µs | automatic µs | automatic / CUB | +zeroed µs | +zeroed / CUB |"
    rule = "|---:|---:|---:|---:|---:|---:|"
    if spec["thrust"]:
        header, rule = header + " thrust µs | thrust / CUB |", rule + "---:|---:|"
    if floors is not None:
        header, rule = header + " floor µs | floor / CUB |", rule + "---:|---:|"
    if spec["plan"]:
        header, rule = header + " automatic plan |", rule + "---|"
    lines = [spec["title"] % (op, typ), "", header, rule]
    for n in sorted({r["n"] for r in rows}):
        c = cub.get(n)
        cells = ratio_cells(by, names, n, c)
        if floors is not None:
            cells += floor_cells(floors, n, c)
        if spec["plan"]:
            cells.append(plans.get(n, "-"))
        resident = any(r.get("l2_resident") for r in rows if r["n"] == n)
        lines.append("| %d%s | %s | %s |" % (n, " (L2)" if resident else "", fmt(c, ".2f"), " | ".join(cells)))
    return lines


PAIRED_TEXT = (
    "At these sizes one call takes ~6 µs between events, mostly launch overhead, with a p10–p90 "
    "spread of ~2 µs, and the machine drifts by a few tenths of a µs between benchmarks run one "
    "after another, so `time / CUB` from the separately run cases above is noise there. Here each "
    "iteration times one call of A (gpureduce) and one of B (`cub::DeviceReduce`) on the same input, "
    "back to back, in ABBA order, so drift hits both alike: `median of A/B` and its p10–p90 are "
    "percentiles of the per-iteration ratios a_i / b_i (not the quotient of the two medians, which "
    "are shown for scale). Below 1 means A is faster.")


def paired_lines(case, rows):
    """The paired family for one case: per n, one row per pair (automatic, then +zeroed), each with
    A's and B's medians and the percentiles of the per-iteration ratios A/B."""
    op, typ = case
    order = list(PAIRED_A) + [p for p in OrderedDict.fromkeys(r["contender"] for r in rows) if p not in PAIRED_A]
    lines = ["### %s %s: A vs CUB, alternated call by call" % (op, typ), "",
             "| n | A | A median µs | B (CUB) median µs | median of A/B | p10–p90 of A/B |",
             "|---:|---|---:|---:|---:|---:|"]
    for n in sorted({r["n"] for r in rows}):
        by = {r["contender"]: r for r in rows if r["n"] == n}
        for pair in (p for p in order if p in by):
            r = by[pair]
            a = PAIRED_A.get(pair, pair)
            l2 = " (L2)" if r.get("l2_resident") else ""
            if r["error"]:
                lines.append("| %d%s | %s | error | | | |" % (n, l2, a))
                continue
            spread = ("%.3f–%.3f" % (r["ratio_p10"], r["ratio_p90"])
                      if r["ratio_p10"] is not None and r["ratio_p90"] is not None else "-")
            lines.append("| %d%s | %s | %s | %s | %s | %s |" % (
                n, l2, a, fmt(r["a_median_us"], ".2f"), fmt(r["b_median_us"], ".2f"),
                fmt(r["ratio_median"], ".3f"), spread))
    return lines


def case_table_lines(case, rows):
    mode, op, typ = case
    cub = cub_times(rows)
    lines = ["### %s: every contender" % case_title(mode, op, typ), "",
             "| n | contender | µs | p10–p90 µs | GB/s | % of peak | time / CUB |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for n in sorted({r["n"] for r in rows}):
        for r in (r for r in rows if r["n"] == n):
            if r["error"]:
                lines.append("| %d | %s | error: %s | | | | |" % (n, r["contender"], r["error"].replace("|", "/")))
                continue
            if r.get("time_us") is None:
                continue
            c = cub.get(n)
            spread = ("%.2f–%.2f" % (r["p10_us"], r["p90_us"])
                      if r.get("p10_us") is not None and r.get("p90_us") is not None else "-")
            reads = r["contender"] != FLOOR  # the empty launch reads nothing: no GB/s (read does)
            lines.append("| %d%s | %s | %.2f | %s | %s | %s | %s |" % (
                n, " (L2)" if r.get("l2_resident") else "", r["contender"], r["time_us"], spread,
                fmt(r["gbps"] if reads else None, ".1f"), fmt(r.get("pct_peak") if reads else None, ".1f"),
                fmt(r["time_us"] / c if c else None, ".2f")))
    return lines


def statistic_text(results):
    """Which time the tables show, in words, from what the JSON had."""
    stats = {r["stat"] for r in measured(results)}
    if stats == {"median"}:
        return ("the median of the timed iterations (counter `median_us`; p10–p90 is the spread "
                "of the middle 80%)")
    if stats == {"mean"}:
        return "Google Benchmark's mean over the timed iterations (this JSON has no `median_us`)"
    return "the median of the timed iterations where recorded (`median_us`), else Google Benchmark's mean"


def write_markdown(path, args, device, context, results, paired=()):
    stream_cases = cases_in_order(results, "stream")
    graph_cases = cases_in_order(results, "graph")
    peak = peak_bytes_per_second(context)
    peak_text = ("gpu_peak_bandwidth, %s" % context["gpu_peak_bandwidth"] if peak else
                 "the bandwidth is unknown in this JSON, so here the floor is the launch alone")
    out = ["# gpureduce benchmarks: %s, %s" % (device, args.date), ""]
    if args.command:
        out += ["Command:", "", "```sh", args.command, "```", ""]
    for key, label in (("versions", "Versions"), ("gpu_peak_bandwidth", "Theoretical bandwidth"),
                       ("gpu_l2_bytes", "L2 bytes"), ("l2_flush", "L2 flush"), ("timing", "Timing"),
                       ("graph_timing", "Graph mode"), ("paired_timing", "Paired mode"),
                       ("statistics", "Statistics"),
                       ("floor_note", "Floor"), ("thrust_note", "Thrust"), ("inputs", "Inputs"), ("input_seed", "Input seed"),
                       ("date", "Run at"), ("host_name", "Host")):
        if key in context:
            out.append("- %s: %s" % (label, context[key]))
    out += ["",
            "Times are GPU time from CUDA events, in µs: %s. GB/s counts input bytes read "
            "(1 GB = 1e9 B) in that time; `time / CUB` below 1 means faster than "
            "`cub::DeviceReduce`. Sizes marked (L2) fit in the L2 cache and were not flushed: their "
            "GB/s is cache bandwidth, not HBM." % statistic_text(results), ""]
    if stream_cases:
        out += ["## Automatic vs CUB", "",
                "One call between two CUDA events on the stream (launch overhead included). "
                "`automatic plan`: what `automatic/automatic` launched at that n.", ""]
        with_floor = mode_has_floor(stream_cases)
        if with_floor:
            out += [FLOOR_TEXT % peak_text, ""]
        for case, rows in stream_cases.items():
            out += summary_lines("stream", case, rows, peak, with_floor) + [""]
        read_tables = [read_lines(case, rows) for case, rows in stream_cases.items()]
        if any(read_tables):
            out += ["## Reading the input alone (the bandwidth floor)", "", READ_TEXT, ""]
            for lines in read_tables:
                if lines:
                    out += lines + [""]
    if graph_cases:
        out += ["## Graph mode: automatic vs CUB", "",
                "Per reduction: 100 reductions of the same input captured into one CUDA graph, one "
                "replay timed per iteration and divided by 100 (no host launch overhead; the input "
                "stays in L2 where it fits). Each contender has 4 such graphs, each with its own "
                "allocations of temp storage and output, replayed in turn and pooled: where those "
                "land moves a graph reduction by 0.1-0.2 µs (h200-2026-11-22g-probe.txt, run 15).", ""]
        with_floor = mode_has_floor(graph_cases)
        if with_floor:
            out += ["`floor µs` as above, with the `floor` contender's time per empty kernel of a "
                    "100-kernel graph (no host launch overhead) as the launch term. Replays read "
                    "the same input, so every size below the L2 size is read from L2 here: the "
                    "DRAM read term overstates the true minimum most in this table.", ""]
        for case, rows in graph_cases.items():
            out += summary_lines("graph", case, rows, peak, with_floor) + [""]
    paired_cases = cases_in_order(paired, "paired")
    if paired_cases:
        out += ["## Paired small-n comparison (A and B alternated call by call)", "", PAIRED_TEXT, ""]
        for case, rows in paired_cases.items():
            out += paired_lines(case, rows) + [""]
    if args.ladder:
        out += ["## The ladder", ""]
        for path_ in args.ladder:
            with open(path_) as f:
                out += ["`%s`:" % os.path.basename(path_), "", "```", f.read().rstrip("\n"), "```", ""]
    if args.overhead:
        out += ["## Host enqueue cost (gpureduce_overhead)", "",
                "Host wall time for one call to return (not GPU time); the queue is drained every "
                "64 calls outside the timed region.", ""]
        for path_ in args.overhead:
            with open(path_) as f:
                out += ["`%s`:" % os.path.basename(path_), "", "```", f.read().rstrip("\n"), "```", ""]
    out += ["## Every contender", ""]
    for case, rows in cases_in_order(results).items():
        out += case_table_lines(case, rows) + [""]
    errors = [r for r in list(results) + list(paired) if r["error"]]
    if errors:
        out += ["## Errors", ""] + ["- %s%s/%s/n:%d/%s: %s" % ("" if r["mode"] == "stream" else r["mode"] + "/",
                                                            r["op"], r["type"], r["n"], r["contender"], r["error"])
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

    # (mode, op, type); the floor reads nothing, so it has no GB/s to plot
    cases = [(c, [r for r in measured(rows) if r["contender"] != FLOOR])
             for c, rows in cases_in_order(results).items()]
    cases = [(c, rows) for c, rows in cases if rows]
    if not cases:
        print("report.py: nothing measured, no plot", file=sys.stderr)
        return True
    cols = 2 if len(cases) > 1 else 1
    nrows = (len(cases) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(9 * cols, 6 * nrows), squeeze=False)
    styles = ["-", "--", "-.", ":"]
    for ax, ((mode, op, typ), rows) in zip(axes.flat, cases):
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
        ax.set_title(case_title(mode, op, typ) + (" (per reduction, 100 per graph)" if mode == "graph" else ""))
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
    p.add_argument("--overhead", action="append", default=[],
                   help="a gpureduce_overhead output to include (repeatable)")
    args = p.parse_args(argv)

    with open(args.json) as f:
        data = json.load(f)
    context = data.get("context", {})
    # The CSV's device column names the GPU as the benchmark saw it; the file names use --device.
    device = context.get("gpu", args.device)
    results = load_results(data)
    paired = load_paired(data)
    if not results and not paired:
        print("report.py: no gpureduce_bench results in %s" % args.json, file=sys.stderr)
        return 1

    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, "%s-%s" % (args.device, args.date))
    if os.path.abspath(args.json) != os.path.abspath(stem + ".json"):
        shutil.copyfile(args.json, stem + ".json")
    write_csv(stem + ".csv", device, results)
    write_markdown(stem + ".md", args, device, context, results, paired)
    peak = peak_bytes_per_second(context)
    for mode in SUMMARY_MODES:
        cases = cases_in_order(results, mode)
        with_floor = mode_has_floor(cases)
        for case, rows in cases.items():
            print("\n".join(summary_lines(mode, case, rows, peak, with_floor)) + "\n")
    for case, rows in cases_in_order(paired, "paired").items():
        print("\n".join(paired_lines(case, rows)) + "\n")
    print("wrote %s.json, %s.csv, %s.md" % (stem, stem, stem))
    if not write_plot(stem + ".png", device, args.date, results):
        return 3
    print("wrote %s.png" % stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
