"""Run every ``benchmarks/bench_*.py`` script in turn (``make bench``).

Each script prints its own figures, targets and ratios; this runner always
exits 0 (a benchmark reports, it does not gate). Extra arguments (e.g.
``--quick``) are passed to every script.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if not scripts:
        print("no benchmarks/bench_*.py scripts found")
    for script in scripts:
        print(f"=== {script.name} " + "=" * max(0, 66 - len(script.name)), flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script), *argv], cwd=HERE.parent)
        print(f"=== {script.name}: exit code {rc}, {time.perf_counter() - t0:.1f} s\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
