"""Benchmark of rule files (workbench.rules) against icepool (the named peer).

A script, not a test: it prints figures, targets and ratios and always exits 0.

(a) one exact resolution of a rule file: 40 attacks through three stages
    (to hit 4+ re-rolling ones, a natural 6 an extra hit; to wound 4+
    re-rolling failures, a natural 6 skipping the save; a 5+ save), d3 damage
    one success at a time with wasted damage, 10 models of 3 wounds:
    ``system.attack()``, target <= 2 ms; the same pipeline in icepool (per-token
    dice mixed with ``@``, the unit state advanced one d3 at a time with
    ``icepool.map``), with the ratio and the largest pmf difference;
(b) a sweep of 1,000 cells (BS 2..6 x attacks 1..40 x wounds 1..5) through
    ``system.TABLES["attack"]`` in one call, against the same cells as a loop
    of single ``attack()`` calls.

Run: ``make bench`` or ``.venv/bin/python benchmarks/bench_rules.py [--quick]``.
"""
from __future__ import annotations

import os
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import icepool

from workbench import rules

TARGET_ONE_MS = 2.0
QUICK = "--quick" in sys.argv

RULE_FILE = """
[system]
key = "bench_rules"
name = "Benchmark game (rule file)"
die = 6

[stats.bs]
min = 2
max = 6
default = 4

[stats.sv]
min = 2
max = 7
default = 5

[stats.attacks]
min = 0
max = 40
default = 40

[stats.models]
min = 1
max = 20
default = 10

[stats.wounds]
min = 1
max = 6
default = 3

[attack]
count = "attacks"

[[stages]]
name = "to hit"
target = "bs"
always_fail = [1]
critical = [6]
on_critical = "extra"
extra = 1
reroll = "ones"

[[stages]]
name = "to wound"
target = "4"
always_fail = [1]
critical = [6]
on_critical = "to_end"
reroll = "failed"

[[stages]]
name = "save"
target = "sv"
always_fail = [1]
passes_on = "fail"

[removal]
models = "models"
wounds = "wounds"
damage_roll = "d3"
spill = false
"""


def median_time(fn, number: int, repeat: int, timer=time.perf_counter) -> float:
    """Median seconds per call (wall clock, or CPU time with ``timer=time.process_time``:
    on a shared machine the wall clock also counts other processes' turns)."""
    fn()
    return float(np.median(timeit.repeat(fn, number=number, repeat=repeat, timer=timer))) / number


def verdict(value: float, target: float) -> str:
    return "OK" if value <= target else f"MISSED by x{value / target:.2f}"


def icepool_pipeline(bs=4, sv=5, attacks=40, models=10, wounds=3):
    """The same rules written in icepool: returns (pmf of models removed, expected wasted damage)."""
    hit = icepool.d6.reroll([1], depth=1)
    wound = icepool.d6.reroll(lambda f: f == 1 or f < 4, depth=1)
    # the attack goes on when the save fails: below sv, or a natural 1 (always fails)
    save_die = icepool.d6.map(lambda f: 1 if (f == 1 or f < sv) else 0)
    wound_token = wound.map(lambda f: 1 if f == 6 else (save_die if f >= 4 else 0))
    per_attack = hit.map(lambda f: (2 @ wound_token) if f == 6 else (wound_token if f >= bs else 0))
    successes = attacks @ per_attack

    def step(state, d):
        removed, left, wasted = state
        if removed >= models:
            return (removed, left, wasted + d)
        if d >= left:
            return (removed + 1, wounds, wasted + d - left)
        return (removed, left - d, wasted)

    states = [icepool.Die([(0, wounds, 0)])]
    for _ in range(successes.max_outcome()):
        states.append(icepool.map(step, states[-1], icepool.d3))
    final = successes.map(lambda n: states[n])
    removed = final.map(lambda s: s[0])
    wasted = final.map(lambda s: s[2])
    pmf = np.array([float(removed.probability(k)) for k in range(models + 1)])
    return pmf, float(wasted.mean())


def main() -> None:
    system = rules.loads(RULE_FILE, "bench_rules.toml")

    print("(a) one exact resolution: 40 attacks, 3 stages with criticals and re-rolls, d3 damage, "
          "wasted damage, 10 models x 3 wounds")
    kw = dict(number=20 if QUICK else 100, repeat=5 if QUICK else 9)
    one = median_time(lambda: system.attack(), **kw, timer=time.process_time)
    wall = median_time(lambda: system.attack(), **kw)
    print(f"    workbench.rules: {one * 1e3:.3f} ms CPU per resolution (target <= {TARGET_ONE_MS} ms: "
          f"{verdict(one * 1e3, TARGET_ONE_MS)}); wall clock {wall * 1e3:.3f} ms "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    t0 = time.process_time()
    ice_pmf, ice_wasted = icepool_pipeline()
    ice = time.process_time() - t0
    o = system.attack()
    print(f"    icepool (peer):  {ice * 1e3:.1f} ms CPU (one cold build of the same pipeline); "
          f"ratio icepool / workbench = x{ice / one:.0f}")
    print(f"    agreement: max |pmf difference| = {np.max(np.abs(o.pmf - ice_pmf)):.2e}, "
          f"wasted damage {o.effects['wasted_damage']:.6f} vs icepool {ice_wasted:.6f}")

    print("(b) sweep of 1,000 cells (BS 2..6 x attacks 1..40 x wounds 1..5) of the rule file")
    bs, attacks, wounds = (m.ravel() for m in np.meshgrid(np.arange(2, 7), np.arange(1, 41), np.arange(1, 6),
                                                          indexing="ij"))
    table = system.TABLES["attack"]
    t_table = median_time(lambda: table(bs=bs, attacks=attacks, wounds=wounds),
                          number=1, repeat=3 if QUICK else 5, timer=time.process_time)
    cells = list(zip(bs.tolist(), attacks.tolist(), wounds.tolist()))

    def loop():
        return [system.attack(bs=b, attacks=a, wounds=w).pmf for b, a, w in cells]

    t_loop = median_time(loop, number=1, repeat=1 if QUICK else 3, timer=time.process_time)
    out = table(bs=bs, attacks=attacks, wounds=wounds)
    pmfs = loop()
    diff = max(np.max(np.abs(out["pmf"][i, : p.size] - p)) for i, p in enumerate(pmfs))
    print(f"    attack_table, one call: {t_table * 1e3:.1f} ms CPU ({t_table / 1000 * 1e6:.1f} us per cell)")
    print(f"    loop of 1,000 attack() calls: {t_loop * 1e3:.1f} ms CPU; ratio loop / table = x{t_loop / t_table:.1f}")
    print(f"    agreement: max |pmf difference| = {diff:.2e}")


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # a benchmark reports, it does not gate
        import traceback
        traceback.print_exc()
        print(f"benchmark failed: {exc}")
    sys.exit(0)
