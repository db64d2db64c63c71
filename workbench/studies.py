"""Sampled studies past one process: blocks of samples, each with its own seed, on Dask.

A sampled study (a sampled sweep, a batch of simulated turns) is cut into *blocks* of ``block``
samples or turns, each with a ``numpy.random.SeedSequence`` spawned from the study's seed, and the
blocks' results are combined in a fixed order: the result depends on the seed and the block size
only, whatever ran the blocks (docs/rules/changes_turn.md, "Sampling, seeds, and Dask").

``client`` may be:

* ``None``: every block runs here, one after another;
* a ``dask.distributed.Client`` (yours: it is left open);
* ``"local"``: a ``LocalCluster`` on this machine for this call (closed after);
* a scheduler address such as ``"tcp://10.0.0.5:8786"``: an existing cluster.

A progress bar (:func:`workbench.progress.bar`) counts finished blocks.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd

from . import grid as grid_, systems
from . import validate as v
from .errors import InputError
from .progress import bar, quiet

__all__ = ["DEFAULT_BLOCK", "spawn", "block_sizes", "connect", "run", "sampled_evaluate",
           "local_cluster"]

#: samples per block of a sampled sweep cell
DEFAULT_BLOCK = 25_000


def spawn(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of ``seed`` (a whole number >= 0 or a SeedSequence)."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(v.integer("seed", seed, 0))
    return root.spawn(n)


def block_sizes(total: int, block: int) -> list[int]:
    """``total`` cut into blocks of ``block`` (the last one shorter)."""
    total = v.integer("samples", total, 1, v.MAX_SAMPLES)
    block = v.integer("block", block, 1, v.MAX_SAMPLES)
    full, rest = divmod(total, block)
    return [block] * full + ([rest] if rest else [])


def local_cluster(n_workers: int = 2, threads_per_worker: int = 1, processes: bool = True, **kw: Any):
    """A ``dask.distributed.Client`` on a new ``LocalCluster`` listening on 127.0.0.1
    without a dashboard (close it with ``client.close(); client.cluster.close()``).

    The scheduler serves its health routes over HTTP even without a dashboard:
    on a free port of 127.0.0.1 here (distributed's default is port 8787 on
    every address, taken when two clusters run at once)."""
    from dask.distributed import Client, LocalCluster

    kw.setdefault("dashboard_address", "127.0.0.1:0")
    kw.setdefault("scheduler_kwargs", {"dashboard": False})
    kw.setdefault("host", "127.0.0.1")
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                           processes=processes, **kw)
    return Client(cluster)


_CLIENTS = "None, a dask.distributed.Client, 'local' or a scheduler address"


@contextlib.contextmanager
def connect(client: Any) -> Iterator[Any]:
    """``client`` as a Client (or None), closing what this call opened (see the module docstring)."""
    if client is None:
        yield None
        return
    if not isinstance(client, str) and "distributed" not in sys.modules:
        # no Client can exist before dask.distributed is imported: refuse at once (importing it takes seconds)
        raise InputError("client", _CLIENTS, client)
    try:
        from dask.distributed import Client
    except ImportError as exc:  # pragma: no cover - the tests install the cluster extra
        raise InputError("client", "dask.distributed installed", client) from exc
    if isinstance(client, Client):
        yield client
        return
    if client == "local":
        opened = local_cluster()
    elif isinstance(client, str) and client.strip():
        try:
            opened = Client(client, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError("client", "the address of a running Dask scheduler", client, str(exc)) from None
    else:
        raise InputError("client", _CLIENTS, client)
    try:
        yield opened
    finally:
        cluster = opened.cluster
        opened.close()
        if cluster is not None:
            cluster.close()


def run(fn: Callable, tasks: Sequence[tuple], *, client: Any = None, progress: bool = True,
        desc: str = "blocks") -> list:
    """``[fn(*task) for task in tasks]``, here or on a Dask client, in the order of ``tasks``."""
    with connect(client) as c:
        if c is None:
            out = []
            for task in bar(tasks, total=len(tasks), desc=desc, unit="block", enabled=progress):
                with quiet():
                    out.append(fn(*task))
            return out
        from dask.distributed import as_completed

        futures = [c.submit(fn, *task, pure=False) for task in tasks]
        for _ in bar(as_completed(futures), total=len(futures), desc=desc, unit="block",
                     enabled=progress):
            pass
        return c.gather(futures)


# -- sampled sweeps -----------------------------------------------------------
def _sweep_block(system: str, function: str, kwargs: dict, n: int,
                 seed: np.random.SeedSequence) -> dict:
    """One block of one sweep cell: counts of models removed and the effect sums."""
    _name, fn = grid_.function_of(systems.get(system), function)
    with quiet():
        out = fn(**kwargs, method="sampled", samples=n, seed=np.random.default_rng(seed))
    counts = np.rint(np.asarray(out.pmf) * n).astype(np.int64)
    return {"n": n, "counts": counts, "effects": {k: float(m) * n for k, m in out.effects.items()}}


def _combine(parts: Sequence[dict]) -> tuple[np.ndarray, dict[str, float], float]:
    """Blocks of one cell -> (pmf, effect means, the mean's standard error), from the pooled counts
    and sums in block order."""
    width = max(p["counts"].size for p in parts)
    counts = np.sum([grid_.pad(p["counts"], width) for p in parts], axis=0, dtype=np.int64)
    total = sum(p["n"] for p in parts)
    pmf = counts / total
    names = list(dict.fromkeys(k for p in parts for k in p["effects"]))
    effects = {k: sum(p["effects"][k] for p in parts if k in p["effects"]) / total for k in names}
    k = np.arange(width)
    var = float(pmf @ (k * k) - (pmf @ k) ** 2) * total / max(total - 1, 1)
    return pmf, effects, float(np.sqrt(max(var, 0.0) / total))


def sampled_evaluate(system: Any, function: Any = "shooting", *, progress: bool = True,
                     client: Any = None, block: int = DEFAULT_BLOCK,
                     **grid: Any) -> tuple[pd.DataFrame, np.ndarray, dict[str, np.ndarray], str]:
    """The work of a sampled :func:`workbench.compare.sweep`, cell by cell and block by block.

    Returns ``(cells, pmf, effects, path)`` as :func:`workbench.compare.evaluate`
    (``path = "blocks"``). Cell i's block j is sampled with
    ``SeedSequence(seed).spawn(cells)[i].spawn(blocks)[j]``.
    """
    desc = systems.get(system)
    key, name = desc.key, grid_.function_of(desc, function)[0]
    g = grid_.checked_grid(f"{key}.{name}", desc.arguments(name), grid)  # checked as an exact sweep's grid is
    method = g.get("method", ["exact"])[0]
    if method != "sampled":
        raise InputError("method", "'sampled' (only sampled sweeps are cut into blocks)", method)
    samples = g.get("samples", [100_000])[0]
    seed = g.get("seed", [0])[0]
    sizes = block_sizes(samples, block)
    if isinstance(seed, np.random.Generator):
        raise InputError("seed", "a whole number 0 or more (a sweep spawns one seed per cell and block)",
                         seed)
    cells = grid_.cells_of(g)
    records = [{k: x for k, x in r.items() if k not in grid_.METHOD_KEYS}
               for r in cells.to_dict("records")]
    tasks = [(key, name, kwargs, n, block_seed) for kwargs, cell_seed in zip(records, spawn(seed, len(records)))
             for n, block_seed in zip(sizes, cell_seed.spawn(len(sizes)))]
    parts = run(_sweep_block, tasks, client=client, progress=progress, desc=f"sweep {key}.{name}")
    pmfs, means, stderrs = zip(*(_combine(parts[i:i + len(sizes)]) for i in range(0, len(parts), len(sizes))))
    pmf, effects = grid_.stack(pmfs, means)
    effects["mean_stderr"] = np.array(stderrs, dtype=float)
    return cells, pmf, effects, "blocks"
