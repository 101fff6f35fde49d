#!/usr/bin/env python3
"""How the segmented reduce kernel's warps claim the warp list: a time-stepped model.

Behind claim.hpp's rule (docs/segmented.md, 'Runs'). W workers share one counter; a claim waits
in a FIFO at the counter (atomic_ns each, the measured ~1 ns of same-address atomics) and half a
round trip each way; a run pays meta_us (its list slots and offsets) before its bytes, which
stream at min(cap, bandwidth / active workers). Every worker's next claim is issued as its run
starts (prefetched). Variants: one entry a claim (the old kernel), guided runs sized by what the
previous claim saw ('stale'), guided runs sized by the counter as the run starts ('fresh': the
kernel reads it when the run's last segment begins).

Calibration: the old kernel's 2^18 segments of 256 floats model at 267 us; the H200 measured 275.
Run: python3 benchmark/probes/segmented_claims_sim.py   (a few minutes)
"""
import random


def simulate(sizes, workers, rule, share=2, max_run=32, atomic_ns=1.0, latency_us=0.7,
             meta_us=1.0, bandwidth=4400e3, cap=1.2e3, dt=0.05):
    """Makespan in us and claims made; sizes in bytes, bandwidth and cap in bytes per us."""
    total = len(sizes)
    counter, counter_free, claims = 0, 0.0, 0

    def guided(seen):
        if rule == "one":
            return 1
        return max(1, min(max_run, max(total - seen, 0) // (share * workers)))

    def claim(t, ask):
        nonlocal counter, counter_free, claims
        start = max(t + latency_us / 2, counter_free)
        counter_free = start + atomic_ns / 1000
        first, counter, claims = counter, counter + ask, claims + 1
        return first, start + latency_us / 2

    state = []
    for _ in range(workers):
        ask = guided(0)
        first, ready = claim(0.0, ask)
        state.append(dict(ask=ask, first=first, phase="wait", until=ready, left=0.0, ready=0.0))
    t, finished = 0.0, 0
    while finished < workers:
        rate = min(cap, bandwidth / max(1, sum(w["phase"] == "work" for w in state)))
        for w in state:
            if w["phase"] == "wait" and w["until"] <= t:
                first = w["first"]
                if first >= total:
                    w["phase"], finished = "done", finished + 1
                    continue
                run = min(w["ask"], total - first)
                seen = counter if rule == "fresh" else first + w["ask"]
                w["ask"] = guided(seen)
                w["first"], w["ready"] = claim(t, w["ask"])
                w["left"], w["phase"], w["until"] = sum(sizes[first:first + run]), "meta", t + meta_us
            if w["phase"] == "meta" and w["until"] <= t:
                w["phase"] = "work"
            if w["phase"] == "work":
                w["left"] -= rate * dt
                if w["left"] <= 0:
                    w["phase"], w["until"] = "wait", max(t, w["ready"])
        t += dt
    return t, claims


def main():
    random.seed(1)
    warps = 4224  # 132 SMs x 32 resident warps (4 blocks of 256)
    cases = {
        "2^18 segments of 256 floats": [1024] * (1 << 18),
        "64K segments of 256-4K floats": [4 * random.randint(256, 4096) for _ in range(65536)],
        "16K segments of 4K floats": [16384] * 16384,
    }
    print("| case | rule | makespan us | ideal us | claims |\n|---|---|---:|---:|---:|")
    for name, sizes in cases.items():
        ideal = sum(sizes) / 4400e3
        for rule in ("one", "stale", "fresh"):
            makespan, claims = simulate(sizes, warps, rule)
            print(f"| {name} | {rule} | {makespan:.1f} | {ideal:.1f} | {claims} |", flush=True)


if __name__ == "__main__":
    main()
