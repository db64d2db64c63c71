"""Time the before-and-after diff of two variants: a 12 x 12 grid per built-in system and a rule file.

For each system, one rule switch is turned over (the pairs of ``PAIRS``) and
``workbench.compare.diff`` sets the two variants side by side over two of
their stats (12 values each where the stats' ranges allow). Against it, in
the same run: the two vectorised sweeps it is built from
(``workbench.compare.evaluate``, one per variant) and a loop of single calls of
the stat-level function (two per cell). Target: one diff <= 2x its two
sweeps. Then the before-and-after page's redraw after a slider move (server
CPU time: two sweeps, the heatmaps' new values, the verdict, the table),
target <= 150 ms.

    .venv/bin/python benchmarks/bench_diff.py
"""
from __future__ import annotations

import statistics
import sys
import time

from workbench import variants
from workbench.variants.sweep import _keywords
from workbench.variants.variant import _controls
from workbench.compare import evaluate
from workbench.grid import cells_of

#: system -> (before, after, the two stats of the grid)
PAIRS = {
    "changes": ("changes:weapon=heavy,action=shot", "changes:weapon=heavy,action=shot,heavy_shot=flat_4",
                ("bs", "t")),
    "forgotten": ("forgotten", "forgotten:kill_on=at_or_above", ("shoot", "attack_power")),
    "gunfire": ("gunfire", "gunfire:natural_max_always_succeeds=true", ("bs", "ap")),
    "antares": ("antares", "antares:critical_ignores_res=true", ("acc", "res")),
    "kill6": ("kill6", "kill6:stationary=true", ("shots", "s")),
}
REPEAT = 5


def cpu(fn, repeat: int = REPEAT) -> float:
    """Median CPU seconds of ``fn()`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        times.append(time.process_time() - c0)
    return statistics.median(times)


def grid_of(a: variants.Variant, stats) -> dict[str, list[int]]:
    controls = _controls(a.description, a.function)
    return {k: list(range(int(controls[k].lo), int(controls[k].hi) + 1))[:12] for k in stats}


def main(argv: list[str]) -> int:
    print(f"{'system':<10} {'grid':>7} {'diff ms':>8} {'2 sweeps ms':>11} {'ratio':>6} {'loop ms':>8} "
          f"{'loop/diff':>9}")
    worst = 0.0
    for key, (a_spec, b_spec, stats) in PAIRS.items():
        a, b = variants.Variant.parse(a_spec), variants.Variant.parse(b_spec)
        grid = grid_of(a, stats)
        variants.diff(a, b, grid=grid)  # warm-up
        kw_a, kw_b = _keywords(a, grid, {}), _keywords(b, grid, {})
        t_diff = cpu(lambda: variants.diff(a, b, grid=grid))
        t_sweeps = cpu(lambda: (evaluate(a.description, a.function, progress=False, **kw_a),
                                evaluate(b.description, b.function, progress=False, **kw_b)))
        fa, fb = a.description.function(a.function), b.description.function(b.function)
        cells = cells_of(grid).to_dict("records")
        base_a = {k: v for k, v in kw_a.items() if k not in grid}
        base_b = {k: v for k, v in kw_b.items() if k not in grid}
        t_loop = cpu(lambda: [(fa(**base_a, **c), fb(**base_b, **c)) for c in cells], repeat=1)
        ratio = t_diff / t_sweeps
        worst = max(worst, ratio)
        size = "x".join(str(len(v)) for v in grid.values())
        print(f"{key:<10} {size:>7} {1e3 * t_diff:8.1f} {1e3 * t_sweeps:11.1f} {ratio:6.2f} {1e3 * t_loop:8.0f} "
              f"{t_loop / t_diff:9.0f}")
    print(f"worst diff / two sweeps: {worst:.2f} (target <= 2)")

    from workbench.ui.before_after import BeforeAfterDashboard
    print()
    print(f"{'page redraw after a slider move':<44} {'cpu ms':>7}")
    for query in ("", "?a=kill6&b=kill6:stationary=true&x=shots:1..12&y=s:1..10"):
        page = BeforeAfterDashboard(query=query)
        slider = page.sliders[next(k for k in ("sv", "t", "ap") if k in page.sliders)]
        lo, hi = slider.min, slider.max
        state = {"v": slider.value}

        def move():
            state["v"] = lo + (state["v"] - lo + 1) % (hi - lo + 1)
            slider.value = state["v"]

        move()
        t = cpu(move, repeat=7)
        name = f"{page.b.name[:30]} ({'x'.join(str(len(v)) for v in page.grid().values())})"
        print(f"{name:<44} {1e3 * t:7.1f}   (target <= 150)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
