"""Time a sweep of 100,000 stat cells per system, exact, full pmfs.

Each sweep goes through ``workbench.compare.sweep`` (the systems' vectorised
table twins: one numpy call per combination of non-numeric keywords) and
builds the tidy DataFrame. For scale, it also times the stat-level function
called cell by cell on 300 cells and extrapolates to the grid.

    .venv/bin/python benchmarks/bench_sweep.py           # 100,000 cells per system
    .venv/bin/python benchmarks/bench_sweep.py --quick   # 10,000 cells per system
"""
from __future__ import annotations

import itertools
import math
import sys
import time

from workbench import compare
from workbench.systems import get

R = lambda a, b: list(range(a, b + 1))

GRIDS = {
    # 10 x 10 x 10 x 10 x 10
    "changes": dict(bs=R(1, 10), s=R(1, 10), ap=R(1, 10), t=R(0, 9), sv=R(0, 9), shots=10),
    # 20 x 20 x 10 x 25
    "forgotten": dict(shoot=R(0, 19), attack_power=R(0, 19), shots=R(1, 10), models=R(1, 25)),
    # 10 x 10 x 10 x 10 x 10
    "gunfire": dict(bs=R(1, 10), ev=5, ap=R(1, 10), av=5, s=R(1, 10), t=R(1, 10), shots=R(1, 10)),
    # 10 x 10 x 10 x 10 x 10
    "antares": dict(acc=R(0, 9), res=R(0, 9), sv=R(0, 9), armour=R(0, 9), shots=R(1, 10)),
}
QUICK_CUT = {"changes": "sv", "forgotten": "models", "gunfire": "shots", "antares": "shots"}


def cells(grid: dict) -> int:
    return math.prod(len(v) if isinstance(v, list) else 1 for v in grid.values())


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    print(f"{'system':<10} {'cells':>8} {'path':>6} {'wall s':>8} {'cpu s':>8} {'µs/cell':>8} "
          f"{'loop est. s':>11} {'speed-up':>8}")
    for key, grid in GRIDS.items():
        grid = dict(grid)
        if quick:
            cut = QUICK_CUT[key]
            grid[cut] = grid[cut][:1]
        compare.sweep(key, "shooting", progress=False, **{k: (v[:2] if isinstance(v, list) else v)
                                                           for k, v in grid.items()})  # warm-up
        df, wall, cpu = timed(lambda: compare.sweep(key, "shooting", progress=False, **grid))
        n = len(df)
        assert n == cells(grid)
        # the same function called once per cell, on the first 300 cells
        fn = get(key).shooting
        keys = list(grid)
        combos = itertools.islice(itertools.product(*(v if isinstance(v, list) else [v]
                                                      for v in grid.values())), 300)
        sample = [dict(zip(keys, c)) for c in combos]
        _, loop_wall, _ = timed(lambda: [fn(**kw) for kw in sample])
        loop_est = loop_wall / len(sample) * n
        print(f"{key:<10} {n:>8,} {df.attrs['path']:>6} {wall:>8.3f} {cpu:>8.3f} {1e6 * wall / n:>8.2f} "
              f"{loop_est:>11.1f} {loop_est / wall:>7.0f}x", flush=True)
    print("wall = elapsed time of compare.sweep (DataFrame included); cpu = process CPU time "
          "(the machine may be shared); loop est. = the stat-level function called per cell, "
          "timed on 300 cells and scaled to the grid.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
