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
    <device>-<date>.md    automatic vs CUB per n (stream, with automatic's launch plan; then graph):
                          automatic, automatic+zeroed and, where the case has it,
                          automatic+correctly_rounded (Options::accuracy; floating sums only, absent
                          from older JSON: then no columns), each as µs and time / CUB, with the
                          floor (the `floor` contender's empty launch + the input bytes at the
                          theoretical bandwidth) and floor / CUB where the JSON has `floor`;
                          where the JSON has paired/... entries, the paired small-n comparison (A =
                          automatic, automatic+zeroed or automatic+correctly_rounded and B = CUB
                          alternated call by call: A's and B's medians and the median and p10-p90
                          of the per-iteration ratios A/B);
                          the ladder outputs given with --ladder and gpureduce_overhead's output
                          given with --overhead, verbatim; per case: n, us, p10-p90,
                          GB/s, % of peak and time relative to CUB for every contender, L2-resident
                          sizes marked
    <device>-<date>-<type>.png      per sum type (f32, i32, f64, f16; <device>-<date>-<op>-<type>.png
                          for other operations, e.g. -min-f32.png): left, time in µs against n (log
                          x, log y); right, time / CUB's time at the same n (log y, capped at 2: lines
                          above leave through the top and a note names their largest ratio), for
                          automatic, automatic+zeroed, automatic+correctly_rounded,
                          cub_block/last_block, CUB, Thrust and the floor (as in the .md: empty
                          launch + input at the theoretical bandwidth), those the case has. Top row
                          the stream family, with the paired family's median ratios as hollow
                          markers; bottom row the graph family where it has the case. Sizes whose
                          input fits in L2 are shaded.
    <device>-<date>-ladder.png      with --ladder: one panel per ladder output, a bar of GB/s per
                          rung with GB/s and % of the theoretical peak written at its end, the peak
                          as a dashed line, rungs whose check is not ok hatched in red.
(The single <device>-<date>.png of earlier runs, GB/s of every contender, is no longer written: GB/s
is in the .md and .csv.)

Times are the median of the iterations (the median_us counter) where the JSON has it, else Google
Benchmark's real_time (a mean); GB/s and % of peak follow the same time. JSON from before those
counters still reads: every time is then the mean, and without `floor` entries the floor columns
and lines are left out.

The CSV and Markdown need only the standard library; the plots need matplotlib, imported last so
the other files are written even where it is missing (the script then exits 3 and says so).
Test inputs: benchmark/testdata/ (sample_correctly_rounded_benchmark.json has the
correctly_rounded contender and pair; sample_ladder_f32.txt a ladder with a correctly rounded rung, a
failed check and a row not measured).
"""

import argparse
import csv
import json
import math
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
# gpureduce's contenders in the summary tables and plots: default Options, the zeroed-once fast
# path, and Options::accuracy = correctly_rounded (floating sums only; absent from older JSON).
AUTOMATIC = "automatic/automatic"
ZEROED = "automatic/automatic+zeroed"
CORRECTLY_ROUNDED = "automatic/automatic+correctly_rounded"
# The paired family's benchmarks (the last part of their names), in table order, with A's name.
PAIRED_A = OrderedDict([("automatic_vs_cub", "automatic"), ("zeroed_vs_cub", "automatic+zeroed"),
                        ("correctly_rounded_vs_cub", "automatic+correctly_rounded")])
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


# What the automatic-vs-CUB table of each mode shows besides automatic, +zeroed and (where the case
# has it) +correctly_rounded: its title, whether thrust has columns (it cannot be captured into a
# graph) and whether the launch plan automatic used closes each row.
SUMMARY_MODES = {
    "stream": {"title": "### %s %s: automatic vs CUB", "thrust": True, "plan": True},
    "graph": {"title": "### graph %s %s: automatic vs CUB, per reduction", "thrust": False, "plan": False},
}


def summary_columns(mode, rows):
    """[(contender, column label)] of a case's automatic-vs-CUB table, each shown as µs and / CUB:
    +correctly_rounded only where the case has it (integer sums, other operations and JSON from
    before it do not), thrust only in the stream family."""
    present = {r["contender"] for r in rows}
    columns = [(AUTOMATIC, "automatic"), (ZEROED, "+zeroed")]
    if CORRECTLY_ROUNDED in present:
        columns.append((CORRECTLY_ROUNDED, "+correctly_rounded"))
    if SUMMARY_MODES[mode]["thrust"]:
        columns.append(("thrust", "thrust"))
    return columns


def summary_lines(mode, case, rows, peak=None, with_floor=None):
    """Automatic vs CUB per n for one case of mode 'stream' (one call between events; with thrust
    and the launch plan automatic used: the numbers the results' closing note quotes) or 'graph'
    (per reduction, replayed 100 to a graph); +correctly_rounded beside automatic where the case
    has it; with the floor (one empty launch, or one empty kernel per graph node, + the read) where
    the JSON has the floor contender."""
    spec = SUMMARY_MODES[mode]
    op, typ = case
    cub = cub_times(rows)
    by = {(r["contender"], r["n"]): r for r in rows}
    plans = {r["n"]: r["plan"] for r in rows if r["contender"] == AUTOMATIC and r.get("plan")}
    if with_floor is None:
        with_floor = has_floor(rows)
    floors = floor_times(rows, typ, peak) if with_floor else None
    columns = summary_columns(mode, rows)
    names = [name for name, _ in columns]
    header = "| n | CUB µs |" + "".join(" %s µs | %s / CUB |" % (label, label) for _, label in columns)
    rule = "|---:|---:|" + "---:|---:|" * len(columns)
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


# The lines of the per-type figures, in legend order: contender -> (legend label, matplotlib style).
# FLOOR's line is floor_times' (the empty launch + the input read once at the theoretical bandwidth,
# the tables' `floor µs`), not the empty launch alone.
PLOT_LINES = OrderedDict([
    (AUTOMATIC, ("automatic (default Options)", dict(color="tab:blue", linewidth=2.2, marker="o"))),
    (ZEROED, ("automatic+zeroed", dict(color="tab:orange", linewidth=1.5, marker="s"))),
    (CORRECTLY_ROUNDED, ("automatic+correctly_rounded",
                         dict(color="tab:purple", linewidth=1.5, marker="D"))),
    ("cub_block/last_block", ("cub_block/last_block",
                              dict(color="tab:brown", linewidth=1.0, marker="^", linestyle="--"))),
    ("cub", ("CUB (cub::DeviceReduce)", dict(color="black", linewidth=2.2, marker="o"))),
    ("thrust", ("Thrust (thrust::reduce)",
                dict(color="tab:green", linewidth=1.2, marker="v", linestyle="--"))),
    (FLOOR, ("floor: empty launch + input read at theoretical DRAM bandwidth",
             dict(color="0.35", linewidth=1.5, linestyle=":", marker="."))),
])
# The paired family's pairs, drawn as hollow markers in the stream ratio panel, in A's colour.
PAIRED_LINE = {"automatic_vs_cub": AUTOMATIC, "zeroed_vs_cub": ZEROED,
               "correctly_rounded_vs_cub": CORRECTLY_ROUNDED}
# Panel titles per mode: (time panel, ratio panel).
PLOT_PANELS = {
    "stream": ("stream: one call between CUDA events, µs (log)",
               "stream: time / CUB's time (below 1: faster than CUB)"),
    "graph": ("graph: per reduction, 100 per CUDA graph replay, µs (log)",
              "graph: time / CUB's time (below 1: faster than CUB)"),
}
RATIO_TICKS = (0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0)
# The ratio panels' top: Thrust's 2-4x at small n would squeeze the 0.5-1.1 that matters; lines
# above it leave through the top, and a note in the corner gives their largest ratio.
RATIO_CAP = 2.0


def plot_series(rows, typ, peak):
    """{contender: [(n, µs)]} for the PLOT_LINES contenders the case has measured; a failed size is
    NaN, so its line breaks there. FLOOR's times are floor_times'."""
    series = OrderedDict()
    for name in PLOT_LINES:
        if name == FLOOR:
            points = sorted(floor_times(rows, typ, peak).items())
        else:
            points = sorted((r["n"], r["time_us"] if measured([r]) else float("nan"))
                            for r in rows if r["contender"] == name)
        if any(not math.isnan(t) for _, t in points):
            series[name] = points
    return series


def format_n_axis(ax, ns):
    """log2 x axis with ticks at the even powers of two from the smallest n to the largest."""
    import matplotlib.ticker as ticker
    ax.set_xscale("log", base=2)
    lo, hi = min(ns).bit_length() - 1, max(ns).bit_length()
    ticks = [2 ** k for k in range(lo + lo % 2, hi + 1, 2)]
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter(["$2^{%d}$" % (t.bit_length() - 1)
                                                        for t in ticks]))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel("n (elements)")
    ax.grid(True, which="major", alpha=0.3)


def shade_l2(ax, rows):
    """Grey band over the sizes whose input fits in L2 (not flushed: read from cache), up to halfway
    (geometrically) to the first size that does not."""
    ns = sorted({r["n"] for r in measured(rows)})
    resident = [n for n in ns if any(r.get("l2_resident") for r in rows if r["n"] == n)]
    if not resident:
        return
    above = [n for n in ns if n > max(resident)]
    right = (max(resident) * above[0]) ** 0.5 if above else max(resident)
    ax.axvspan(min(ns) / 1.2, right, color="0.93", zorder=0,
               label="input fits in L2 (read from cache)")


def draw_time_panel(ax, series, rows, title):
    import matplotlib.ticker as ticker
    shade_l2(ax, rows)
    for name, points in series.items():
        label, style = PLOT_LINES[name]
        ax.plot([n for n, _ in points], [t for _, t in points], markersize=3.5, label=label, **style)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: "%g" % v))
    ax.set_ylabel("µs")
    ax.set_title(title, fontsize=10)
    format_n_axis(ax, [n for points in series.values() for n, _ in points])


def ratio_points(points, cub):
    """[(n, time / CUB's time)] where CUB has a time at n (NaN where the contender failed)."""
    return [(n, t / cub[n]) for n, t in points if cub.get(n)]


def largest(ratios):
    return max([v for _, v in ratios if not math.isnan(v)] or [0.0])


def note_off_scale(ax, series, cub, top):
    """Names the lines that leave the ratio panel through its top, with their largest ratio."""
    over = ["%s (up to %.2f)" % (PLOT_LINES[name][0].split(" (")[0], largest(ratios))
            for name, ratios in ((name, ratio_points(points, cub)) for name, points in series.items())
            if largest(ratios) > top]
    if over:
        ax.text(0.02, 0.97, "above %g: %s" % (top, ", ".join(over)), transform=ax.transAxes,
                ha="left", va="top", fontsize=8,
                bbox=dict(facecolor="white", edgecolor="0.7", alpha=0.9))


def draw_paired_markers(ax, paired_rows):
    """The paired family's medians of A / CUB as hollow circles in A's colour; returns them."""
    values = []
    for r in paired_rows:
        if r["error"] or r["ratio_median"] is None:
            continue
        color = PLOT_LINES[PAIRED_LINE.get(r["contender"], AUTOMATIC)][1]["color"]
        ax.plot([r["n"]], [r["ratio_median"]], linestyle="none", marker="o", markersize=8,
                markerfacecolor="none", markeredgecolor=color, markeredgewidth=1.5)
        values.append(r["ratio_median"])
    return values


def draw_ratio_panel(ax, series, rows, title, paired_rows=()):
    """Each line's time over CUB's at the same n (CUB: the line at 1); the paired family's medians
    of the per-iteration ratios as hollow markers in A's colour."""
    import matplotlib.ticker as ticker
    shade_l2(ax, rows)
    cub = dict(series.get("cub", []))
    values = []
    for name, points in series.items():
        label, style = PLOT_LINES[name]
        if name == "cub":
            ax.axhline(1.0, label=label, **{k: v for k, v in style.items() if k != "marker"})
            continue
        ratios = ratio_points(points, cub)
        values += [v for _, v in ratios if not math.isnan(v)]
        ax.plot([n for n, _ in ratios], [v for _, v in ratios], markersize=3.5, label=label, **style)
    values += draw_paired_markers(ax, paired_rows)
    ax.set_yscale("log")
    lo, hi = min(values + [1.0]) / 1.08, min(max(values + [1.0]) * 1.08, RATIO_CAP)
    ax.set_ylim(lo, hi)
    note_off_scale(ax, series, cub, hi)
    ax.yaxis.set_major_locator(ticker.FixedLocator([t for t in RATIO_TICKS if lo <= t <= hi]))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: "%g" % v))
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.set_ylabel("time / CUB's time (log)")
    ax.set_title(title, fontsize=10)
    format_n_axis(ax, [n for points in series.values() for n, _ in points])


def figure_legend(fig, axes, with_paired):
    """One legend for the whole figure, below the panels: each label once, in PLOT_LINES order."""
    from matplotlib.lines import Line2D
    found = OrderedDict()
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            found.setdefault(label, h)
    order = [label for label, _ in PLOT_LINES.values()]
    rank = lambda label: order.index(label) if label in order else len(order)  # the L2 band last
    handles = OrderedDict(sorted(found.items(), key=lambda item: rank(item[0])))
    if with_paired:
        handles["paired family: median of the per-call ratios A / CUB (A and CUB alternated)"] = Line2D(
            [], [], linestyle="none", marker="o", markersize=8, markerfacecolor="none",
            markeredgecolor="0.3", markeredgewidth=1.5)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=3,
               fontsize=9, frameon=False)
    return (len(handles) + 2) // 3  # legend rows


def type_figure(plt, title, panels, peak):
    """One figure: a row of (time, ratio to CUB) per mode in panels = [(mode, typ, rows, paired
    rows)], with one legend below."""
    fig, axes = plt.subplots(len(panels), 2, figsize=(15, 5 * len(panels) + 1.6), squeeze=False)
    for (mode, typ, rows, paired_rows), (ax_time, ax_ratio) in zip(panels, axes):
        series = plot_series(rows, typ, peak)
        time_title, ratio_title = PLOT_PANELS[mode]
        draw_time_panel(ax_time, series, rows, time_title)
        draw_ratio_panel(ax_ratio, series, rows, ratio_title, paired_rows)
    legend_rows = figure_legend(fig, axes.flat, any(p[3] for p in panels))
    fig.suptitle(title, fontsize=13)
    fig.tight_layout(rect=(0, (0.25 + 0.22 * legend_rows) / fig.get_figheight(), 1, 0.97))
    return fig


def plot_file_name(stem, op, typ):
    """<stem>-<type>.png for sums, <stem>-<op>-<type>.png for the other operations."""
    return "%s-%s.png" % (stem, typ if op == "sum" else "%s-%s" % (op, typ))


def write_type_plots(plt, stem, device, date, results, paired, peak):
    """One PNG per (op, type): a row for the stream family (with the paired family's ratios) and
    one for the graph family, each where the JSON has the case; returns the paths written."""
    families = [(mode, cases_in_order(results, mode)) for mode in ("stream", "graph")]
    paired_cases = cases_in_order(paired, "paired")
    written = []
    for op, typ in OrderedDict.fromkeys(key for _, cases in families for key in cases):
        panels = []
        for mode, cases in families:
            rows = cases.get((op, typ), [])
            if plot_series(rows, typ, peak):
                paired_rows = paired_cases.get((op, typ), []) if mode == "stream" else []
                panels.append((mode, typ, rows, paired_rows))
        if not panels:
            continue
        title = "%s %s: gpureduce vs CUB and Thrust, %s, %s" % (op, typ, device, date)
        fig = type_figure(plt, title, panels, peak)
        path = plot_file_name(stem, op, typ)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# gpureduce_ladder's text output (ladder_report.cpp's print_table): the first line, the peak line
# and one line per rung: index, name, time_us, GB/s, %peak, speedup, result, abs_err, rel_err, check.
LADDER_TITLE = re.compile(r"gpureduce ladder: (.*)")
LADDER_DEVICE = re.compile(r"device:\s+(.*)")
LADDER_PEAK = re.compile(r"peak:\s+([0-9.]+)\s*GB/s")
LADDER_ROW = re.compile(r"(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)\s")


def number_or_none(text):
    try:
        return float(text)
    except ValueError:
        return None


def parse_ladder(path):
    """{'title', 'device', 'peak_gbps' (None if unknown), 'rows': [{'index', 'name', 'gbps', 'pct',
    'check'}]} from a gpureduce_ladder output; gbps and pct are None where the rung was not
    measured (or the peak is unknown)."""
    ladder = {"title": os.path.basename(path), "device": "", "peak_gbps": None, "rows": []}
    with open(path) as f:
        for line in f:
            for key, pattern in (("title", LADDER_TITLE), ("device", LADDER_DEVICE)):
                m = pattern.match(line)
                if m:
                    ladder[key] = m.group(1).strip()
            m = LADDER_PEAK.match(line)
            if m:
                ladder["peak_gbps"] = number_or_none(m.group(1))
            m = LADDER_ROW.match(line)
            if m:
                ladder["rows"].append({"index": m.group(1), "name": m.group(2),
                                       "gbps": number_or_none(m.group(4)),
                                       "pct": number_or_none(m.group(5)), "check": m.group(6)})
    return ladder


def ladder_color(name):
    """Bar colour by kind of rung: CUB and Thrust as in the per-type figures, automatic and
    automatic+correctly_rounded too, the seeds' atomic and nested baselines grey, the rest pale."""
    if name.startswith("cub::"):
        return "black"
    if name.startswith("thrust::"):
        return PLOT_LINES["thrust"][1]["color"]
    if name.startswith("automatic+correctly_rounded"):
        return PLOT_LINES[CORRECTLY_ROUNDED][1]["color"]
    if name.startswith("automatic"):
        return PLOT_LINES[AUTOMATIC][1]["color"]
    if name.startswith(("atomic", "nested")):
        return "0.7"
    return "#8fb3d9"


def ladder_bar_text(row):
    """'3324 GB/s, 69.0%' (the % where the peak is known), with the check where it is not ok."""
    if row["gbps"] is None:
        return "not measured"
    text = "%.0f GB/s" % row["gbps"] + (", %.1f%%" % row["pct"] if row["pct"] is not None else "")
    return text + ("  " + row["check"] if row["check"] != "ok" else "")


def draw_ladder(ax, ladder, with_names=True):
    """Horizontal bars of GB/s, first rung on top, % of peak written at each bar's end; the peak as
    a dashed line; rungs that failed their check hatched and marked."""
    rows = ladder["rows"]
    ys = range(len(rows))
    gbps = [r["gbps"] or 0.0 for r in rows]
    bars = ax.barh(ys, gbps, color=[ladder_color(r["name"]) for r in rows], edgecolor="none",
                   height=0.7)
    for bar, r in zip(bars, rows):
        if r["check"] not in ("ok", "-"):
            bar.set_hatch("//")
            bar.set_edgecolor("tab:red")
    top = max(gbps + [ladder["peak_gbps"] or 0.0]) or 1.0
    for y, r in zip(ys, rows):
        ax.text((r["gbps"] or 0.0) + top * 0.01, y, ladder_bar_text(r), va="center", fontsize=8,
                zorder=3, color="tab:red" if r["check"] not in ("ok", "-") else "black",
                bbox=dict(facecolor="white", edgecolor="none", pad=0.5, alpha=0.8))
    if ladder["peak_gbps"]:
        ax.axvline(ladder["peak_gbps"], color="tab:red", linestyle="--", linewidth=1,
                   label="theoretical peak, %.0f GB/s" % ladder["peak_gbps"])
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(list(ys))
    ax.set_yticklabels(["%s %s" % (r["index"], r["name"]) for r in rows] if with_names else [])
    ax.set_ylim(len(rows) - 0.4, -0.6)  # first rung on top
    ax.set_xlim(0, top * 1.22)  # room for the text of a bar near the peak
    ax.set_xlabel("GB/s (input bytes / median time); % of the theoretical peak at each bar")
    ax.set_title(ladder["title"], fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)


def write_ladder_plot(plt, path, ladder_paths):
    """One PNG with a panel per ladder output, side by side; rung names only on the first panel
    where every panel has the same rungs. Returns the path, or None if no ladder had rows."""
    ladders = [ladder for ladder in map(parse_ladder, ladder_paths) if ladder["rows"]]
    if not ladders:
        return None
    names = [[r["name"] for r in ladder["rows"]] for ladder in ladders]
    same = all(n == names[0] for n in names)
    height = 1.2 + 0.32 * max(len(n) for n in names)
    fig, axes = plt.subplots(1, len(ladders), figsize=(3 + 6.5 * len(ladders), height), squeeze=False)
    for i, (ax, ladder) in enumerate(zip(axes.flat, ladders)):
        draw_ladder(ax, ladder, with_names=i == 0 or not same)
    fig.suptitle("The ladder, GB/s per rung: %s" % ladders[0]["device"], fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(stem, device, date, results, paired, peak, ladder_paths):
    """The PNGs (see the docstring); the paths written, or None where matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is required for the plots: pip install matplotlib (Debian: apt-get install "
              "python3-matplotlib)", file=sys.stderr)
        return None
    matplotlib.use("Agg")  # no display on GPU machines
    import matplotlib.pyplot as plt

    written = write_type_plots(plt, stem, device, date, results, paired, peak)
    if ladder_paths:
        ladder = write_ladder_plot(plt, stem + "-ladder.png", ladder_paths)
        written += [ladder] if ladder else []
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", help="gpureduce_bench --benchmark_out=FILE --benchmark_out_format=json output")
    p.add_argument("--device", required=True, help="short device name for the file names, e.g. h100")
    p.add_argument("--date", required=True, help="date for the file names, e.g. 2026-11-22")
    p.add_argument("--out", default=".", help="output folder (created if missing)")
    p.add_argument("--command", help="the exact command that produced the JSON, quoted in the .md")
    p.add_argument("--ladder", action="append", default=[],
                   help="a gpureduce_ladder output to include and plot (repeatable)")
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
    plots = write_plots(stem, device, args.date, results, paired, peak, args.ladder)
    if plots is None:
        return 3
    print("wrote %s" % (", ".join(plots) if plots else "no plots (nothing measured)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
