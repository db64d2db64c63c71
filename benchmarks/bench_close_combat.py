"""Benchmark of The Forgotten's close combat, exact, against the hand-written resolver it replaced.

A script, not a test: it prints figures and ratios and always exits 0.

``workbench.systems.forgotten.close_combat`` resolves through its rule file
(rules/forgotten_close_combat.toml, the named mechanism ``two_sided_close_combat``); the peer
is the hand-written resolver kept as the tests' reference oracle
(tests/reference/forgotten_cc.py), run in the same process on the same cases: the defaults,
a counter with tough fighters and heroic saves, and each over 1 and 5 rounds. Figures are CPU
time (``time.process_time``), the median of repeated calls, after one warm-up call: "warm"
calls the same stats again (what the mechanism and the dice remember of the faces and
expressions serves), "cold" empties those memories before each call (a first call at new
stats); the reference is timed cold (its stages' words read the same dice); the largest
difference of the two pmfs and effects is printed beside them.

Run: ``.venv/bin/python benchmarks/bench_close_combat.py [--quick]``.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from reference import forgotten_cc as ref  # noqa: E402  (the oracle lives beside the tests)

from workbench.rules import die  # noqa: E402
from workbench.rules.mechanisms import two_sided, two_sided_close_combat  # noqa: E402
from workbench.systems import forgotten as fg  # noqa: E402

QUICK = "--quick" in sys.argv
REPEATS = 5 if QUICK else 21
BASE = dict(attacker_cqc=6, defender_cqc=5, attacker_phys=5, defender_phys=6)
CASES = {
    "defaults": dict(BASE),
    "counter, tough, heroic saves": dict(BASE, response="counter", attacker_tough=True, defender_tough=True,
                                         attacker_heroic_save=8, defender_heroic_save=7),
}


def forget() -> None:
    """Empty what the close-combat mechanism and the dice remember between calls."""
    two_sided_close_combat._VALUES.clear()
    two_sided._faces_passed.cache_clear()
    die._probabilities.cache_clear()


def cpu_ms(fn, cold: bool = False) -> float:
    """Median CPU milliseconds of one call of ``fn`` (after a warm-up call); ``cold``: with the
    mechanism's memories emptied before each call."""
    fn()
    times = []
    for _ in range(REPEATS):
        if cold:
            forget()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return 1000 * statistics.median(times)


def largest_difference(a, b) -> float:
    d = max(abs(x - y) for x, y in zip(a.pmf, b.pmf))
    return max([d] + [abs(a.effects[k] - b.effects[k]) for k in a.effects])


def main() -> None:
    print(f"close combat, exact: CPU ms per call (median of {REPEATS}), workbench against the hand-written "
          "reference resolver")
    print(f"{'case':34s} {'rounds':>6s} {'warm':>7s} {'cold':>7s} {'reference':>10s} {'ratio warm':>10s} "
          f"{'ratio cold':>10s} {'max diff':>9s}")
    for name, case in CASES.items():
        for rounds in (1, 5):
            kw = dict(case, rounds=rounds)
            warm = cpu_ms(lambda: fg.close_combat(**kw))
            cold = cpu_ms(lambda: fg.close_combat(**kw), cold=True)
            theirs = cpu_ms(lambda: ref.close_combat(**kw), cold=True)
            diff = largest_difference(fg.close_combat(**kw), ref.close_combat(**kw))
            print(f"{name:34s} {rounds:6d} {warm:7.2f} {cold:7.2f} {theirs:10.2f} {warm / theirs:10.2f} "
                  f"{cold / theirs:10.2f} {diff:9.1e}")


if __name__ == "__main__":
    main()
