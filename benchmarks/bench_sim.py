"""Turns per second of the Changes turn simulator, in one process and on Dask.

The same study (three units a side, greedy against spread, every die rolled)
runs with ``client=None`` (this process), then on a ``LocalCluster`` of 1 and
of 2 worker processes (one thread each, 127.0.0.1, no dashboard). It prints
turns per second, the speed-up of 2 workers over 1 and the scaling
efficiency = speed-up / 2 (1.0 = perfect). It also checks that the three runs
gave the same DataFrame (the seeds are spawned per block, not per worker).

The named peer for the cluster runs is the one-process run: on a machine with
fewer free cores than workers, efficiency falls below 1 by design.

    .venv/bin/python benchmarks/bench_sim.py            # 20,000 turns
    .venv/bin/python benchmarks/bench_sim.py --quick    # 4,000 turns
"""
from __future__ import annotations

import os
import sys
import time

from workbench import studies
from workbench.turn import UnitSpec, Weapon, study

BOLTER = Weapon("Boltgun", s=5, ap=5, shots=1, kind="light")
HEAVY = Weapon("Heavy Bolter", s=4, ap=4, shots=3, kind="heavy")
FORCE_A = [UnitSpec("A1", models=5, weapons=(BOLTER,)), UnitSpec("A2", models=4, weapons=(HEAVY,)),
           UnitSpec("A3", models=8, weapons=(BOLTER,))]
FORCE_B = [UnitSpec("B1", models=6, weapons=(BOLTER,)), UnitSpec("B2", models=3, weapons=(HEAVY,), cover=2),
           UnitSpec("B3", models=5, weapons=(BOLTER,))]


def timed(turns: int, client, block: int):
    kw = dict(policy_a="greedy", policy_b="spread", turns=turns, seed=1, block=block, progress=False)
    study(FORCE_A, FORCE_B, **{**kw, "turns": min(turns, 2 * block)}, client=client)  # warm-up
    t0 = time.perf_counter()
    df = study(FORCE_A, FORCE_B, client=client, **kw)
    return df, time.perf_counter() - t0


def cluster_verdicts(one_process_rate: float, rates: dict[int, float]) -> list[str]:
    """One line per cluster size: whether it pays against the one-process run
    (its turns per second over the one process's); a cluster that is slower
    says so and says what to use instead."""
    out = []
    for n, rate in sorted(rates.items()):
        ratio = rate / one_process_rate
        workers = f"{n} worker" + ("s" if n > 1 else "")
        if ratio < 1:
            out.append(f"a LocalCluster of {workers} does NOT pay on this machine: {ratio:.2f}x the turns "
                       f"per second of one process (shipping blocks costs more than it spreads); "
                       f"run study(..., client=None) here")
        else:
            out.append(f"a LocalCluster of {workers} pays: {ratio:.2f}x the turns per second of one process")
    return out


def main(argv: list[str]) -> int:
    turns = 4_000 if "--quick" in argv else 20_000
    block = 500
    print(f"Changes turn simulator: {turns} turns, blocks of {block}, {os.cpu_count()} CPUs on this machine")
    print("other work on the machine skews these figures: the 1-minute load average is printed per run")
    print(f"{'where':<22} {'wall s':>8} {'turns/s':>10} {'load':>6}")
    df0, t0 = timed(turns, None, block)
    print(f"{'one process':<22} {t0:>8.2f} {turns / t0:>10.0f} {os.getloadavg()[0]:>6.1f}")
    rates = {}
    for n in (1, 2):
        client = studies.local_cluster(n_workers=n, threads_per_worker=1, processes=True)
        try:
            df, t = timed(turns, client, block)
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()
        rates[n] = turns / t
        same = df.equals(df0)
        print(f"{f'LocalCluster, {n} worker' + ('s' if n > 1 else ''):<22} {t:>8.2f} {rates[n]:>10.0f}"
              f" {os.getloadavg()[0]:>6.1f}   same DataFrame as one process: {same}")
    speedup = rates[2] / rates[1]
    print(f"speed-up 2 workers / 1 worker: {speedup:.2f}x; scaling efficiency {speedup / 2:.0%}")
    print(f"1 worker against one process: {rates[1] / (turns / t0):.2f}x (the cost of shipping blocks)")
    for line in cluster_verdicts(turns / t0, rates):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
