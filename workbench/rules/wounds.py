"""Removal model by model: a save that reads whether the model is wounded, tough models and
models that start wounded (``[removal]`` keys ``save``, ``tough`` and ``already_wounded``,
docs/rulefiles.md "Saves that depend on the shots before").

Each final success is a blow to the model in front of the unit:

* the model rolls its save, one die of ``save_die`` faces (the system's die unless given): a
  roll at or above ``save`` ignores the blow. The expression ``save`` may read ``wounded``,
  1 when the model in front already carries a wound and 0 when it does not, so "a hero saves
  at -1 once wounded" is ``save = "phys + wounded"``;
* an unsaved blow removes the model, unless it is ``tough`` and not yet wounded: then it is
  wounded and stays in front (the next unsaved blow removes it);
* blows go to the wounded models first: the unit starts with ``already_wounded`` wounded
  models, each of the first of them is in front while any is left, then the fresh ones follow.

The model in front's state after each blow is a Markov chain over (models removed, the model
in front wounded): the save of each blow depends on the blows before it, so no single chance
per success exists. :func:`exact` steps it once per success for every cell at once (the work
is cells x successes x successes, checked against the engine's budget before it starts);
:func:`sampled` applies the same rule to sampled successes, one blow at a time.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from .errors import BudgetError
from .spec import Removal

__all__ = ["unit", "exact", "sampled", "save_chances"]


def save_chances(removal: Removal, env: Mapping[str, Any], cells: int, check_value) -> tuple:
    """(P(save) of a fresh model, P(save) of a wounded one), arrays (cells,): a d``save_die`` roll
    at or above the ``save`` expression evaluated with ``wounded`` 0 and 1 (no save: zeros)."""
    if removal.save is None or removal.save_die is None:
        return np.zeros(cells), np.zeros(cells)
    sides = removal.save_die
    out = []
    for w in (0, 1):
        env2 = dict(env, wounded=np.asarray(w))
        target = check_value(removal.save, env2, "removal.save", None, None, "a roll needed")
        target = np.broadcast_to(np.asarray(target, dtype=np.int64), (cells,))
        out.append(np.clip(sides - target + 1, 0, sides) / sides)
    return out[0], out[1]


def unit(removal: Removal, env: Mapping[str, Any], cells: int, models, check_value) -> dict:
    """Every cell's tough flag, models that start wounded and save chances, checked."""
    tough = (np.zeros(cells, dtype=bool) if removal.tough is None else
             np.broadcast_to(np.asarray(removal.tough.evaluate(env, "removal.tough")) != 0, (cells,)))
    k0 = np.zeros(cells, dtype=np.int64)
    if removal.already_wounded is not None:
        k0 = np.broadcast_to(check_value(removal.already_wounded, env, "removal.already_wounded", 0, 10 ** 6,
                                         "a number of models"), (cells,)).astype(np.int64)
        if models is not None and np.any(k0 > models):
            bad = int(np.flatnonzero(k0 > models)[0])
            raise InputError("removal.already_wounded", "at most the unit's models",
                             f"{int(k0[bad])} wounded models in a unit of {int(models[bad])}")
    s0, s1 = save_chances(removal, env, cells, check_value)
    return {"tough": tough, "k0": k0, "s0": s0, "s1": s1}


def exact(p_n: np.ndarray, models: np.ndarray | None, u: Mapping[str, np.ndarray], max_work: int,
          path: Any = "<rule file>") -> tuple[np.ndarray, np.ndarray]:
    """pmf (cells, width) of models removed by ``p_n[c, k]`` = P(k successes) and the expected
    successes wasted on a destroyed unit (cells,).

    ``state[c, d, w]``: P(d models removed, the model in front wounded (w = 1) or not) after the
    successes so far; with a unit size the removed count stops at ``models``."""
    cells, width_n = p_n.shape
    last = np.flatnonzero(p_n.any(axis=0))
    n_max = int(last[-1]) if last.size else 0
    if cells * n_max * (n_max + 1) > max_work:
        raise BudgetError(path, "removal.save", f"at most {max_work:,} steps (cells x successes x successes) "
                          "for saves that depend on the shots before", f"{cells:,} cells x {n_max:,} successes",
                          "method='sampled' has no such limit")
    cap = np.full(cells, n_max) if models is None else np.minimum(np.asarray(models), n_max)
    D = int(cap.max()) + 1 if cells else 1
    tough, k0 = u["tough"][:, None], u["k0"][:, None]
    fail0, fail1 = (1.0 - u["s0"])[:, None], (1.0 - u["s1"])[:, None]
    d = np.arange(D)[None, :]
    gone = d >= cap[:, None]                      # the unit is destroyed (or no more can be removed)
    nxt_wounded = (d + 1) < k0                    # after a removal: the next model in front is wounded
    state = np.zeros((cells, D, 2))
    state[np.arange(cells), 0, (u["k0"] > 0).astype(int)] = 1.0
    out = np.zeros((cells, D))
    wasted = np.zeros(cells)
    for n in range(n_max + 1):
        out += p_n[:, n, None] * state.sum(axis=-1)
        if n == n_max:
            break
        f, w = state[..., 0], state[..., 1]
        live_f, live_w = np.where(gone, 0.0, f), np.where(gone, 0.0, w)
        wasted += p_n[:, n + 1:].sum(axis=1) * np.where(gone, f + w, 0.0).sum(axis=1)
        hit_f, hit_w = live_f * fail0, live_w * fail1
        new = np.zeros_like(state)
        new[..., 0] = f - hit_f
        new[..., 1] = w - hit_w + np.where(tough, hit_f, 0.0)
        down = hit_w + np.where(tough, 0.0, hit_f)    # removed: d -> d + 1
        moved = down[:, :-1]
        new[:, 1:, 1] += np.where(nxt_wounded[:, :-1], moved, 0.0)
        new[:, 1:, 0] += np.where(nxt_wounded[:, :-1], 0.0, moved)
        state = new
    return out, wasted


def sampled(rng: np.random.Generator, successes: np.ndarray, models: int | None, u: Mapping[str, Any],
            ) -> tuple[np.ndarray, np.ndarray]:
    """Models removed and successes wasted per sample (one cell's ``u``), one blow at a time:
    each blow's save rolled against the model in front's state."""
    n = successes.size
    tough, k0 = bool(u["tough"][0]), int(u["k0"][0])
    s0, s1 = float(u["s0"][0]), float(u["s1"][0])
    removed = np.zeros(n, dtype=np.int64)
    wounded = np.full(n, k0 > 0)
    wasted = np.zeros(n, dtype=np.int64)
    for t in range(int(successes.max(initial=0))):
        act = successes > t
        alive = act if models is None else act & (removed < models)
        wasted += act & ~alive
        saved = rng.random(n) < np.where(wounded, s1, s0)
        unsaved = alive & ~saved
        down = unsaved & (wounded | (not tough))
        removed += down
        wounded = np.where(down, removed < k0, wounded | (unsaved & tough))
    return removed, wasted
