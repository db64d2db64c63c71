"""Benchmark of the resolver core against icepool (the named peer).

A script, not a test: it prints figures, targets and ratios and always exits 0.

(a) one exact resolution of 100 shots per system (the seed profiles' basic
    matchup, full pmf 0..100), workbench ``<system>.shooting`` vs an icepool
    expression of the same pipeline (per-shot die built from the same stage
    tests, ``100 @ die``, then the models-removed map);
(b) a sweep over 4,032 cells, BS 1..12 x AP 1..12 x T 0..6 x shots in
    {1, 5, 10, 20}, three D12 stages, full pmfs: ``changes.TABLES["shooting"]``
    in one call vs icepool per cell (icepool on a seeded subset of cells,
    extrapolated to 4,032, as printed);
(c) sampled dice per second: ``<system>.shooting(method="sampled")``, dice
    counted as a player rolls them (stages x dice per test x shots x samples);
(d) the largest exact calls the argument checks allow (changes: 10,000 shots,
    attacks, or volley shots shared by its three units, computed in log space), against icepool's
    ``10000 @ die`` of the same per-shot die.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_core.py [--quick] [--no-profile]``.
"""
from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time
import timeit
import traceback

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import icepool

from workbench import profiles, systems

TARGET_ONE_MS = 0.3
TARGET_SWEEP_MS = 20.0
TARGET_DICE_PER_S = 100e6
QUICK = "--quick" in sys.argv
PROFILE = "--no-profile" not in sys.argv


def median_time(fn, number: int, repeat: int, timer=time.perf_counter) -> float:
    """Median seconds per call over ``repeat`` batches of ``number`` calls
    (wall clock by default; ``timer=time.process_time`` for CPU time)."""
    fn()  # warm caches and imports
    return float(np.median(timeit.repeat(fn, number=number, repeat=repeat, timer=timer))) / number


def verdict(value: float, target: float, lower_is_better: bool = True) -> str:
    ok = value <= target if lower_is_better else value >= target
    if ok:
        return "OK"
    factor = value / target if lower_is_better else target / value
    return f"MISSED by x{factor:.2f}"


def show_profile(fn, calls: int = 200, top: int = 10) -> None:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in s.getvalue().splitlines() if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls")), 0)
    print(f"      profile ({calls} calls, top {top} by own time):")
    for ln in lines[start: start + top + 1]:
        print("      " + ln[:150])


# -- icepool pipelines of the four systems --------------------------------------------
def _bern(p_die: icepool.Die) -> icepool.Die:
    return p_die.map(lambda ok: 1 if ok else 0)


def _under(value: int):
    """Antares roll-under on two d10s (seed 004), as a function of both faces."""
    def rule(a, b):
        if value < 1:
            return a == 1 and b == 1
        return a <= value and a != 10
    return rule


def icepool_shooting(system: str, kw: dict) -> np.ndarray:
    """Models-removed pmf of ``kw`` (uncapped) computed with icepool: each
    stage an independent boolean die, the per-shot die their ``&``, the count
    ``shots @ die``, then the models-removed map."""
    n = kw["shots"]
    d12, d10 = icepool.d12, icepool.d10
    if system == "changes":
        hit = kw["bs"] + max(kw.get("cover", 0), kw.get("inv", 0))
        pierce, wound = kw["ap"] + kw.get("sv", 0), kw["s"] + kw.get("t", 0)
        per_shot = (d12 >= hit) & (d12 >= pierce) & (d12 >= wound)
        count = n @ _bern(per_shot)
        w = kw.get("wounds", 1)
        removed = count if w == 1 else count.map(lambda k: k // w)
    elif system == "forgotten":
        armour = {"none": 0, "light": 1, "heavy": 2}[kw.get("armour", "none")]
        per_shot = (d10 >= kw["shoot"]) & (d10 - armour > kw["attack_power"])
        removed = n @ _bern(per_shot)
    elif system == "gunfire":
        s, t = kw["s"], kw["t"]
        per_shot = (d10 >= 6 + kw["ev"] - kw["bs"]) & (d10 >= 6 + kw["av"] - kw["ap"])
        pens = n @ _bern(per_shot)
        removed = pens if s >= t else pens.map(lambda k: k * s // t)
    else:
        hit = icepool.map(_under(kw["acc"] + kw.get("acc_mod", 0)), d10, d10)
        res = icepool.map(_under(kw["res"] + kw.get("armour", 0) + kw.get("cover", 0) - kw.get("sv", 0)), d10, d10)
        per_shot = hit & res.map(lambda ok: not ok)
        removed = n @ _bern(per_shot)
    probs = removed.probabilities()
    out = np.zeros(max(removed.outcomes()) + 1)
    for k, p in zip(removed.outcomes(), probs):
        out[k] = float(p)
    return out


# -- (a) one exact resolution -------------------------------------------------------------------
def bench_one() -> None:
    print("(a) one exact resolution of 100 shots (seed profiles, basic matchup, full pmf, models=None)")
    print(f"    target: <= {TARGET_ONE_MS} ms per call")
    print(f"    {'system':<10} {'workbench':>12} {'(cpu)':>10} {'icepool':>12} {'ratio':>8}  {'max |diff|':>10}  verdict")
    missed = []
    for key in systems.BUILTINS:
        try:
            mod = systems.get(key)
            kw = profiles.matchup_kwargs(key, *profiles.basic_matchup(key), shots=100, models=None)
            wb = median_time(lambda: mod.shooting(**kw), number=50 if QUICK else 200, repeat=7 if QUICK else 15)
            cpu = median_time(lambda: mod.shooting(**kw), number=50 if QUICK else 200, repeat=7 if QUICK else 15,
                              timer=time.process_time)
            ice = median_time(lambda: icepool_shooting(key, kw), number=3, repeat=3 if QUICK else 7)
            a = np.asarray(mod.shooting(**kw).pmf)
            b = icepool_shooting(key, kw)
            width = max(a.size, b.size)
            diff = np.abs(np.pad(a, (0, width - a.size)) - np.pad(b, (0, width - b.size))).max()
            v = verdict(wb * 1e3, TARGET_ONE_MS)
            print(f"    {key:<10} {wb * 1e3:>9.3f} ms {cpu * 1e3:>7.3f} ms {ice * 1e3:>9.3f} ms {ice / wb:>7.1f}x"
                  f"  {diff:>10.1e}  {v} (cpu: {verdict(cpu * 1e3, TARGET_ONE_MS)})")
            if v != "OK":
                missed.append((key, mod, kw))
        except Exception:  # a benchmark reports, it does not stop
            print(f"    {key:<10} error:\n" + traceback.format_exc())
    print("    (times are medians, wall clock; (cpu) = process CPU time, less sensitive to a busy machine;\n"
          "     ratio = icepool time / workbench time; icepool computes the kill count only, "
          "not the side effects the workbench also returns)")
    if PROFILE:
        for key, mod, kw in missed:
            print(f"    where {key}.shooting spends its time:")
            show_profile(lambda: mod.shooting(**kw))
    print()


# -- (b) sweep -------------------------------------------------------------------------------------
def sweep_grid():
    bs = np.arange(1, 13)[:, None, None, None]
    ap = np.arange(1, 13)[None, :, None, None]
    t = np.arange(0, 7)[None, None, :, None]
    shots = np.array([1, 5, 10, 20])[None, None, None, :]
    return bs, ap, t, shots


def bench_sweep() -> None:
    print("(b) sweep of 4,032 cells: BS 1..12 x AP 1..12 x T 0..6 x shots {1,5,10,20}; S 5+, Sv +3;")
    print("    three D12 stages (hit BS+0, pierce AP+Sv, wound S+T), full pmfs of 0..20 models removed")
    print(f"    target: <= {TARGET_SWEEP_MS:.0f} ms")
    try:
        table = systems.get("changes").TABLES["shooting"]
        bs, ap, t, shots = sweep_grid()
        call = lambda: table(bs=bs, s=5, ap=ap, t=t, sv=3, shots=shots)
        res = call()
        cells = int(np.prod(res["pmf"].shape[:-1]))
        wb = median_time(call, number=5, repeat=5 if QUICK else 15)
        cpu = median_time(call, number=5, repeat=5 if QUICK else 15, timer=time.process_time)
        # icepool, one cell at a time, on a seeded subset
        rng = np.random.default_rng(0)
        idx = np.stack(np.unravel_index(np.arange(4032), (12, 12, 7, 4)), axis=1)
        subset = idx[rng.choice(4032, size=48 if QUICK else 200, replace=False)]

        def ice_cells():
            out = []
            for i, j, k, m in subset:
                kw = dict(bs=int(i) + 1, ap=int(j) + 1, t=int(k), shots=int([1, 5, 10, 20][m]), s=5, sv=3)
                out.append(icepool_shooting("changes", kw))
            return out

        t0 = time.perf_counter()
        pmfs = ice_cells()
        ice_subset = time.perf_counter() - t0
        ice = ice_subset * 4032 / len(subset)
        diff = 0.0
        for (i, j, k, m), p in zip(subset, pmfs):
            row = res["pmf"][i, j, k, m]
            diff = max(diff, float(np.abs(row[: p.size] - p).max()), float(np.abs(row[p.size:]).max(initial=0)))
        print(f"    workbench: {wb * 1e3:.2f} ms (cpu {cpu * 1e3:.2f} ms) for {cells} cells in one call  "
              f"{verdict(wb * 1e3, TARGET_SWEEP_MS)} (cpu: {verdict(cpu * 1e3, TARGET_SWEEP_MS)})")
        print(f"    icepool:   {ice_subset * 1e3:.0f} ms for {len(subset)} random cells (seed 0), "
              f"extrapolated to 4,032 cells: {ice:.2f} s")
        print(f"    ratio:     {ice / wb:.0f}x (icepool / workbench); max |diff| on the subset {diff:.1e}")
        if PROFILE and wb * 1e3 > TARGET_SWEEP_MS:
            print("    where the sweep spends its time:")
            show_profile(call, calls=10)
    except Exception:
        print("    error:\n" + traceback.format_exc())
    print()


# -- (c) sampled dice per second --------------------------------------------------------------
#: dice a player rolls per shot in the basic matchup (stages x dice per test)
DICE_PER_SHOT = {"changes": 3, "forgotten": 2, "gunfire": 2, "antares": 4}


def bench_sampled() -> None:
    samples = 200_000 if QUICK else 1_000_000
    shots = 20
    print(f"(c) sampled dice per second: shooting(method='sampled', samples={samples:,}, shots={shots}), "
          "median of 3 runs")
    print(f"    target: >= {TARGET_DICE_PER_S / 1e6:.0f} M dice/s (changes: 3 D12 per shot; others for information:"
          " forgotten 2 d10, gunfire 2 d10, antares 2 tests x 2 d10 as counted by the roll-under rule)")
    for key in systems.BUILTINS:
        try:
            mod = systems.get(key)
            kw = profiles.matchup_kwargs(key, *profiles.basic_matchup(key), shots=shots, models=None,
                                         method="sampled", samples=samples, seed=1)
            mod.shooting(**{**kw, "samples": 1000})
            times, cpus = [], []
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                mod.shooting(**kw)
                times.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            sec, cpu = float(np.median(times)), float(np.median(cpus))
            dice = DICE_PER_SHOT[key] * shots * samples
            rate, cpu_rate = dice / sec, dice / cpu
            tag = (f"{verdict(rate, TARGET_DICE_PER_S, lower_is_better=False)} "
                   f"(cpu: {verdict(cpu_rate, TARGET_DICE_PER_S, lower_is_better=False)})") if key == "changes" else "(info)"
            print(f"    {key:<10} {dice / 1e6:>6.0f} M dice in {sec:.3f} s = {rate / 1e6:>7.1f} M dice/s"
                  f" (cpu {cpu_rate / 1e6:.1f})  {tag}")
        except Exception:
            print(f"    {key:<10} error:\n" + traceback.format_exc())
    try:
        # the icepool peer has no sampler of its own; its Die.sample() draws one outcome at a time
        die = icepool.map(lambda a, b, c: a >= 5 and b >= 8 and c >= 7, icepool.d12, icepool.d12, icepool.d12)
        n = 20_000
        t0 = time.perf_counter()
        for _ in range(n):
            die.sample()
        sec = time.perf_counter() - t0
        print(f"    icepool Die.sample() of the changes per-shot die: {3 * n / sec / 1e6:.3f} M dice/s "
              "(one draw per call, not a dice roller; for scale)")
    except Exception:
        print("    icepool sample: error:\n" + traceback.format_exc())
    print()


TARGET_LARGEST_S = 1.0


def largest_cases() -> list[tuple[str, object]]:
    """(d)'s calls: each at the largest size the argument checks allow
    (``changes.MAX_DICE`` dice per resolution; a volley's units share it)."""
    from workbench.systems import changes
    n = changes.MAX_DICE
    thirds = [n // 3 + (1 if i < n % 3 else 0) for i in range(3)]  # 3,334 + 3,333 + 3,333 = 10,000
    units = [dict(bs=5, s=5, ap=5, shots=thirds[0]), dict(bs=4, s=4, ap=6, shots=thirds[1]),
             dict(bs=6, s=6, ap=4, shots=thirds[2], weapon="heavy")]
    return [
        (f"shooting, shots={n}, models={n}, W=2",
         lambda: changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=n, models=changes.MAX_MODELS, wounds=2)),
        # melee's attacks and Furious Charge's free attacks share the resolution's dice
        (f"melee, attacks={n // 2} + {n - n // 2} free",
         lambda: changes.melee(ws=5, s=5, ap=5, attacks=n // 2, furious_charge=True, charging_models=n - n // 2)),
        (f"volley, 3 units, {' + '.join(map(str, thirds))} shots",
         lambda: changes.volley(units, models=changes.MAX_MODELS)),
    ]


def bench_largest() -> None:
    from workbench.systems import changes
    print("(d) the largest exact calls allowed: changes with 10,000 dice (log-space binomial)")
    print(f"    target: <= {TARGET_LARGEST_S:.1f} s per call")
    for name, fn in largest_cases():
        try:
            sec = median_time(fn, number=1, repeat=1 if QUICK else 3)
            print(f"    {name:<42} {sec * 1e3:9.2f} ms  {verdict(sec, TARGET_LARGEST_S)}")
        except Exception:
            print(f"    {name}: error:\n" + traceback.format_exc())
    try:
        p = icepool.Die({1: 5, 0: 31})  # 5/36 per shot, the first case's per-shot chance
        start = time.perf_counter()
        big = 500 @ p  # 1,000 @ die already exceeds Python's recursion limit inside icepool
        ice = time.perf_counter() - start
        ours = median_time(lambda: changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=500), number=3,
                           repeat=1 if QUICK else 3)
        print(f"    at 500 shots (icepool's 1,000 @ die hits Python's recursion limit): icepool "
              f"{ice * 1e3:.1f} ms, workbench {ours * 1e3:.2f} ms: ratio {ice / ours:.0f}x "
              f"(icepool outcomes {len(big)})")
    except Exception:
        print("    icepool: error:\n" + traceback.format_exc())
    print()


def main() -> int:
    print(f"workbench core benchmark  (numpy {np.__version__}, icepool {icepool.__version__}, "
          f"{os.cpu_count()} CPUs{', --quick' if QUICK else ''})")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          + ("  (the machine is busy: timings are inflated)" if load[0] > 1.0 else "") + "\n")
    bench_one()
    bench_sweep()
    bench_sampled()
    bench_largest()
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
    sys.exit(0)
