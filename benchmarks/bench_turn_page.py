"""How long the Changes turn page takes to redraw, in the kernel (no browser).

A redraw of ``workbench.ui.turn.TurnDashboard`` replays four scenarios (the
chosen answer, always engage, always under fire, I-go-you-go; three studies
when the answer is engage or under fire) of ``turns`` turns each and redraws
five plots and the Numbers table. The page's default sample must redraw in
under ~2 s on a 2-core machine and the largest allowed one in a few seconds.

Named peer: the 40k Changes dashboard's redraw (``SystemDashboard("changes")``,
one exact resolution), the page a playtester compares it with; the ratio says
how much heavier a sampled turn study is.

    .venv/bin/python benchmarks/bench_turn_page.py            # 5 repeats
    .venv/bin/python benchmarks/bench_turn_page.py --quick    # 2 repeats
"""
from __future__ import annotations

import os
import statistics
import sys
import time

from workbench.ui import SystemDashboard
from workbench.ui.turn import TurnDashboard
from workbench.ui.turncontrols import DEFAULT_TURNS, TURNS_RANGE

#: (what, settings): the default forces, and the heaviest: three 20-model heavy bolter units a side
BIG = {f"{s}{i}_{k}": v for s in "ab" for i in (1, 2, 3)
       for k, v in (("models", 20), ("unit", "space-marine.heavy-bolter"))}
CASES = [("default forces, greedy v focus, engage", {}),
         ("default forces, go to ground (4 studies)", {"b_answer": "go_to_ground"}),
         ("3 x 20 heavy bolters a side, greedy 95 %", {**BIG, "a_kill": 95, "b_plan": "greedy", "b_kill": 95,
                                                       "b_answer": "go_to_ground"})]


def redraw(page, values: dict, repeats: int) -> float:
    """Median seconds of a redraw at ``values`` (the seed changes each time, so nothing is reused)."""
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        page.set_values(**values, seed=100 + r)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    repeats = 2 if "--quick" in argv else 5
    print(f"Changes turn page redraw, median of {repeats}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f} (other work on the machine skews these figures)")
    peer = SystemDashboard("changes", profiles=False)
    t_peer = []
    for r in range(repeats):
        t0 = time.perf_counter()
        peer.set_values(shots=10 + r)
        t_peer.append(time.perf_counter() - t0)
    peer_s = statistics.median(t_peer)
    print(f"peer: 40k Changes dashboard redraw {peer_s * 1000:.1f} ms")
    page = TurnDashboard()
    print(f"{'case':<44} {'turns':>6} {'redraw s':>9} {'x peer':>8} {'target':>8}")
    for turns, target in ((DEFAULT_TURNS, 2.0), (TURNS_RANGE[1], None)):
        for what, values in CASES:
            page.set_values(**{**{k: c.default for k, c in page.controls.items()}, **values, "turns": turns})
            s = redraw(page, {**values, "turns": turns}, repeats)
            verdict = "" if target is None else ("ok" if s <= target else f"MISSED by {s - target:.2f} s")
            print(f"{what:<44} {turns:>6} {s:>9.2f} {s / peer_s:>8.0f} {verdict or '-':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
