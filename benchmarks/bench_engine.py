"""Benchmark of one exact resolution at every size: the four built-ins' shooting and a
3-stage D12 rule file, against icepool (the named peer) and a bare numpy binomial (the floor).

A script, not a test: it prints CPU times (``time.process_time``, medians), ratios and
targets, and always exits 0.

Rows (exact, one call each):

* 10 / 100 / 1000 shots, models = shots, 1 wound;
* 1000 shots at 1 / 10 / 100 / 1000 models (the cost of the unit size);
* 100 shots with d3 damage at 50 models of 3 wounds (the unit-state chain; rule file only:
  no built-in has a rolled damage per success).

icepool resolves the rule file's pipeline (hit 5+, wound 6+, a failed 7+ save on a D12: one
shot gets through with 8/12 x 7/12 x 6/12) as ``shots @ Die`` capped at the unit size. The
floor is ``workbench.engine.binomial_pmf(shots, p)``: the binomial that any exact resolution
of a 1-wound target has to compute.

Targets (the rule file): >= 10x icepool at 10 shots, >= 200x at 100, >= 5,000x at 1000;
<= 10x the floor at 100 shots and <= 3x at 1000; 1 to 1000 models <= 1.5x.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--quick]`` (``--quick`` leaves out
icepool at 1000 shots, which takes seconds).
"""
from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import icepool

from workbench import engine, rules
from workbench.systems import antares, changes, forgotten, gunfire

QUICK = "--quick" in sys.argv

D12 = """
[system]
key = "bench_engine"
name = "Benchmark D12 (rule file)"
die = 12

[stats.shots]
min = 0
max = 5000
default = 10

[stats.models]
min = 0
max = 5000
default = 10

[stats.wounds]
min = 1
max = 10
default = 1

[attack]
count = "shots"

[[stages]]
name = "to hit"
target = "5"

[[stages]]
name = "to wound"
target = "6"

[[stages]]
name = "save"
target = "7"
passes_on = "fail"

[removal]
models = "models"
wounds = "wounds"
DAMAGE
"""
RULE = rules.loads(D12.replace("DAMAGE", "damage = 1"), "bench_engine.toml")
RULE_D3 = rules.loads(D12.replace("DAMAGE", 'damage_roll = "d3"'), "bench_engine_d3.toml")
P = 8 / 12 * 7 / 12 * 6 / 12

SYSTEMS = {
    "changes": lambda n, m: changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=n, models=m),
    "forgotten": lambda n, m: forgotten.shooting(shoot=6, attack_power=5, armour="light", shots=n, models=m),
    "gunfire": lambda n, m: gunfire.shooting(bs=4, ev=3, ap=3, av=3, s=1, t=1, shots=n, models=m),
    "antares": lambda n, m: antares.shooting(acc=5, res=5, sv=1, shots=n, models=m),
    "rule file": lambda n, m: RULE.attack(shots=n, models=m),
}


def cpu(fn, budget: float = 0.3, most: int = 200) -> float:
    """Median CPU seconds of ``fn()``: repeated until ``budget`` seconds or ``most`` calls."""
    fn()  # warm: imports, caches
    times, spent = [], 0.0
    while spent < budget and len(times) < most:
        t = time.process_time()
        fn()
        dt = time.process_time() - t
        times.append(dt)
        spent += dt
        if dt > budget:
            break
    return statistics.median(times)


def icepool_once(n: int, m: int) -> float:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * n + 1000))   # icepool sums n dice recursively

    def run():
        one = (icepool.d12 >= 5) & (icepool.d12 >= 6) & (icepool.d12 <= 6)
        total = n @ one.map({True: 1, False: 0})
        total.map(lambda k: min(k, m)).probabilities()
    t = time.process_time()
    run()
    return time.process_time() - t


def ms(x: float) -> str:
    return f"{x * 1000:9.3f} ms"


def main() -> None:
    print("bench_engine: one exact resolution, CPU time (median), models = shots, 1 wound")
    print(f"{'system':<10} {'10 shots':>13} {'100 shots':>13} {'1000 shots':>13}")
    rows = {}
    for name, fn in SYSTEMS.items():
        rows[name] = [cpu(lambda: fn(n, n)) for n in (10, 100, 1000)]
        print(f"{name:<10} " + " ".join(f"{ms(x):>13}" for x in rows[name]))
    floor = [cpu(lambda: engine.binomial_pmf(n, P)) for n in (10, 100, 1000)]
    print(f"{'floor':<10} " + " ".join(f"{ms(x):>13}" for x in floor))
    peer = []
    for n in (10, 100, 1000):
        if QUICK and n == 1000:
            peer.append(float("nan"))
            continue
        peer.append(statistics.median(icepool_once(n, n) for _ in range(3 if n < 1000 else 1)))
    print(f"{'icepool':<10} " + " ".join(f"{ms(x):>13}" for x in peer))

    print("\n1000 shots at 1 / 10 / 100 / 1000 models")
    models = {}
    for name, fn in SYSTEMS.items():
        models[name] = [cpu(lambda: fn(1000, m)) for m in (1, 10, 100, 1000)]
        print(f"{name:<10} " + " ".join(f"{ms(x):>13}" for x in models[name])
              + f"   1000/1 models: {models[name][3] / models[name][0]:.2f}x")

    d3 = cpu(lambda: RULE_D3.attack(shots=100, models=50, wounds=3))
    print(f"\n100 shots, d3 damage, 50 models of 3 wounds (rule file, unit-state chain): {ms(d3)}")

    r = rows["rule file"]
    print("\nTargets (rule file)                       got        target")
    for n, i, want in ((10, 0, 10), (100, 1, 200), (1000, 2, 5000)):
        ratio = peer[i] / r[i]
        ok = "ok" if ratio >= want else "MISSED"
        print(f"icepool / rule file at {n:>4} shots      {ratio:9.1f}x   >= {want}x   {ok}")
    for n, i, want in ((100, 1, 10), (1000, 2, 3)):
        ratio = r[i] / floor[i]
        ok = "ok" if ratio <= want else "MISSED"
        print(f"rule file / floor at {n:>4} shots        {ratio:9.1f}x   <= {want}x     {ok}")
    ratio = models["rule file"][3] / models["rule file"][0]
    print(f"1000 models / 1 model at 1000 shots     {ratio:9.2f}x   <= 1.5x   {'ok' if ratio <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
