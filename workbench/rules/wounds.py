"""Removal model by model: a save that reads whether the model is wounded, tough models and
models that start wounded (``[removal]`` keys ``save``, ``tough`` and ``already_wounded``; the
rule: docs/rulefiles.md, "Saves that depend on the shots before"). Each final success is a blow
to the model in front of the unit.

The model in front's state after each blow is a Markov chain over (models removed, the model
in front wounded): the save of each blow depends on the blows before it, so no single chance
per success exists. :func:`exact` steps it once per success for every cell at once (the work
is cells x successes x successes, checked against the engine's budget before it starts);
:func:`sampled` applies the same rule to sampled successes, one blow at a time.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .. import engine as core
from ..errors import InputError
from . import tally
from .budget import check_value
from .errors import BudgetError
from .frozen import remember
from .spec import Chance, Removal
from .tokens import _grow, _shift

__all__ = ["unit", "exact", "sampled", "save_chances", "reads_removal", "joint_chance", "MAX_CHAIN_WORK"]

#: cells x successes x successes of the model-by-model chain: about 2 s
MAX_CHAIN_WORK = 20_000_000


def save_chances(removal: Removal, env: Mapping[str, Any], cells: int) -> tuple:
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


#: :func:`unit` of one cell by the expressions and the values of the stats they read (a scalar
#: resolution asks again for every stat that changes nothing about the unit)
_UNITS: dict = {}


def unit(removal: Removal, env: Mapping[str, Any], cells: int, models) -> dict:
    """Every cell's tough flag, models that start wounded and save chances, checked."""
    exprs = (removal.save, removal.tough, removal.already_wounded)
    names = sorted(set().union(*(e.names for e in exprs if e is not None)) & env.keys())
    if cells != 1 or any(np.size(env[n]) != 1 for n in names):
        return _unit(removal, env, cells, models)

    def kept() -> dict:   # read-only: every call of the same unit shares it
        u = _unit(removal, env, cells, models)
        for x in u.values():
            x.setflags(write=False)
        return u

    key = (exprs, removal.save_die, None if models is None else int(np.asarray(models).item()),
           *(np.asarray(env[n]).item() for n in names))
    return remember(_UNITS, key, kept, 256)


def _unit(removal: Removal, env: Mapping[str, Any], cells: int, models) -> dict:
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
    s0, s1 = save_chances(removal, env, cells)
    return {"tough": tough, "k0": k0, "s0": s0, "s1": s1}


def _blow(state: np.ndarray, u: Mapping[str, np.ndarray], cap: np.ndarray) -> np.ndarray:
    """``state[c, ..., d, w]`` after one more blow to the model in front: P(d models removed, the
    model in front wounded (w = 1) or not); ``cap[c]``: the most models that can be removed."""
    lift = (-1,) + (1,) * (state.ndim - 2)
    D = state.shape[-2]
    d = np.arange(D)
    gone = d >= cap.reshape(lift)                      # the unit is destroyed
    nxt_wounded = (d[:-1] + 1) < u["k0"].reshape(lift)  # after a removal: the next model is wounded
    tough = u["tough"].reshape(lift)
    f, w = state[..., 0], state[..., 1]
    hit_f = np.where(gone, 0.0, f) * (1.0 - u["s0"]).reshape(lift)
    hit_w = np.where(gone, 0.0, w) * (1.0 - u["s1"]).reshape(lift)
    new = np.empty_like(state)
    new[..., 0] = f - hit_f
    new[..., 1] = w - hit_w + np.where(tough, hit_f, 0.0)
    moved = (hit_w + np.where(tough, 0.0, hit_f))[..., :-1]  # removed: d -> d + 1
    new[..., 1:, 1] += np.where(nxt_wounded, moved, 0.0)
    new[..., 1:, 0] += np.where(nxt_wounded, 0.0, moved)
    return new


def _start(cells: int, lead: tuple[int, ...], D: int, u: Mapping[str, np.ndarray]) -> np.ndarray:
    state = np.zeros((cells,) + lead + (D, 2))
    state[(np.arange(cells),) + (0,) * len(lead) + (0, (u["k0"] > 0).astype(int))] = 1.0
    return state


def exact(p_n: np.ndarray, models: np.ndarray | None, u: Mapping[str, np.ndarray],
          path: Any = "<rule file>") -> tuple[np.ndarray, np.ndarray]:
    """pmf (cells, width) of models removed by ``p_n[c, k]`` = P(k successes) and the expected
    successes wasted on a destroyed unit (cells,): the chain of :func:`_blow` stepped once per
    success; with a unit size the removed count stops at ``models``."""
    cells, width_n = p_n.shape
    last = np.flatnonzero(p_n.any(axis=0))
    n_max = int(last[-1]) if last.size else 0
    if cells * n_max * (n_max + 1) > MAX_CHAIN_WORK:
        raise BudgetError(path, "removal.save", f"at most {MAX_CHAIN_WORK:,} steps (cells x successes x successes) "
                          "for saves that depend on the shots before", f"{cells:,} cells x {n_max:,} successes",
                          "method='sampled' has no such limit")
    cap = np.full(cells, n_max) if models is None else np.minimum(np.asarray(models), n_max)
    q = _memoryless(u, cap)
    if q is not None:
        return _thinned(p_n[:, : n_max + 1], q, None if models is None else np.asarray(models), cap)
    D = int(cap.max()) + 1 if cells else 1
    state = _start(cells, (), D, u)
    out = np.zeros((cells, D))
    wasted = np.zeros(cells)
    gone = np.arange(D)[None, :] >= cap[:, None]
    for n in range(n_max + 1):
        out += p_n[:, n, None] * state.sum(axis=-1)
        if n == n_max:
            break
        wasted += p_n[:, n + 1:].sum(axis=1) * np.where(gone, state.sum(axis=-1), 0.0).sum(axis=1)
        state = _blow(state, u, cap)
    return out, wasted


def _memoryless(u: Mapping[str, np.ndarray], cap: np.ndarray) -> np.ndarray | None:
    """P(a blow removes a model) in every cell when it is the same for every blow (no tough
    model, and the models in front are all fresh, all wounded or save alike); else None."""
    if u["tough"].any():
        return None
    fresh, wounded = u["k0"] == 0, u["k0"] >= cap
    if not np.all(fresh | wounded | (u["s0"] == u["s1"])):
        return None
    return 1.0 - np.where(fresh, u["s0"], u["s1"])


def _thinned(p_n: np.ndarray, q: np.ndarray, models: np.ndarray | None,
             cap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of the successes removes a model with probability ``q``, independently: the pmf of
    models removed is the successes' generating function at ``1 - q + q z`` (Horner's rule in
    ``1 - q + q z``, all terms positive), capped at ``models``; a success is wasted when it
    comes after ``models`` removals: P(more than j successes) x P(Binomial(j, q) >= models)."""
    cells, width = p_n.shape
    if np.all(q == 1.0):  # every success removes a model
        out = p_n.copy()
    else:
        a, b = (1.0 - q)[:, None], q[:, None]
        out = p_n[:, -1:].copy()
        for k in range(width - 2, -1, -1):
            nxt = np.zeros((cells, out.shape[1] + 1))
            nxt[:, :-1] = a * out
            nxt[:, 1:] += b * out
            nxt[:, 0] += p_n[:, k]
            out = nxt
    wasted = np.zeros(cells)
    if models is not None:
        more = 1.0 - np.cumsum(p_n, axis=1)           # P(more than j successes), j = 0..
        for c in range(cells):
            m = int(models[c])
            if m < width - 1:
                below = core.binomial_pmf(np.arange(width), float(q[c]), width=m).sum(axis=-1)
                wasted[c] = float(np.clip(more[c], 0.0, None) @ np.clip(1.0 - below, 0.0, None))
        return core.cap(out, cap)[:, : int(cap.max()) + 1], wasted   # the one fold, each cell at its own cap
    return out, wasted


def reads_removal(c: Chance) -> bool:
    """Does the chance read ``removed`` beside stage tallies (a joint chance of this module)?"""
    return isinstance(c.count, tuple) and "removed" in c.count


#: multiply-adds of the attack-to-attack matrices of a chance reading removed beside tallies
MAX_JOINT_WORK = 1_000_000_000


def joint_chance(c: Chance, h: np.ndarray, count: np.ndarray, models: np.ndarray | None,
                 u: Mapping[str, np.ndarray], env: Mapping[str, Any], path: Any = "<rule file>") -> np.ndarray:
    """P(``c.when``) per cell for a chance reading stage tallies and ``removed``, each read as at
    most ``c.up_to``.

    ``h`` (cells, *tallies, F): one attack's joint distribution of the tallies' increments and
    its final successes. The state after each attack is (the tallies so far, models removed, the
    model in front wounded), each count saturated at ``up_to``: once ``up_to`` models are
    removed the condition reads ``up_to`` whatever follows, so that row absorbs. One attack is
    the same linear map of the state every time (its outcome moves the tallies up and deals its
    final successes as blows, :func:`_blow`), so ``count`` attacks are that matrix to the power
    ``count``, by repeated squaring.

    Where every blow removes a model with one chance ``q`` (no tough model, and the models in
    front all fresh, all wounded or saving alike) no state is needed: each attack's final
    successes remove Binomial(successes, q) models independently of the rest, so ``removed`` is
    one more count of the attack, and the counts' joint distribution over the attacks is raised
    to ``count`` by repeated squaring, saturating after every product (the tallies' own
    :func:`workbench.rules.tally._all_up_to`); removed is then capped at the unit's models."""
    axes = [n for n in c.count if n != "removed"] + ["removed"]
    up_to = int(c.up_to or 0)
    cells, F = h.shape[0], h.shape[-1]
    tallies = h.ndim - 2
    top = int(count.max())
    cap = np.full(cells, up_to) if models is None else np.minimum(np.asarray(models), up_to)
    dims = (up_to + 1,) * tallies + (up_to + 1, 2)
    S = int(np.prod(dims))
    work = cells * S ** 3 * max(top, 1).bit_length()
    if work > MAX_JOINT_WORK:
        raise BudgetError(path, f"chances[{c.index}].up_to", f"at most {MAX_JOINT_WORK:,} steps of arithmetic "
                          "(cells x states cubed x squarings) for a chance reading removed beside tallies",
                          f"{work:,}", "method='sampled' has no such limit")
    q = _memoryless(u, cap)
    if q is not None:  # every blow removes with one chance: removed is a thinning, a tally like the others
        dist = tally._all_up_to(_thin_last(h, q, up_to), count, up_to, " and ".join(c.count))
        dist = _grow(dist, (up_to + 1,) * (dist.ndim - 1))
        # at most the unit's models are removed: the one fold, each cell at its own cap
        dist = core.cap(dist, cap.reshape((cells,) + (1,) * (dist.ndim - 2)))
        return tally.chance(c, dist, env, axes)
    # one attack applied to every basis state of every cell: rows of the cell's matrix
    rep = {k: np.repeat(np.asarray(x), S) for k, x in u.items()}
    basis = np.tile(np.eye(S), (cells, 1)).reshape((cells * S,) + dims)
    rcap = np.repeat(cap, S)
    blows = [basis]
    for _ in range(F - 1):
        blows.append(_blow(blows[-1], rep, rcap))
    lift = (-1,) + (1,) * (tallies + 2)
    step = np.zeros_like(basis)
    for idx in np.ndindex(*h.shape[1:]):
        weight = h[(slice(None),) + idx]
        if weight.any():
            moved = tally._fold(_shift(blows[idx[-1]], idx[:-1] + (0, 0)), up_to)  # the tallies moved up, saturated
            step += np.repeat(weight, S).reshape(lift) * moved
    T = step.reshape(cells, S, S)
    v = _start(cells, (up_to + 1,) * tallies, up_to + 1, u).reshape(cells, 1, S)
    bit = 1
    while bit <= top:
        on = (count & bit) != 0
        if on.any():
            v[on] = v[on] @ T[on]
        bit <<= 1
        if bit <= top:
            T = T @ T
    dist = v.reshape((cells,) + dims).sum(axis=-1)
    return tally.chance(c, dist, env, axes)


def _thin_last(h: np.ndarray, q: np.ndarray, up_to: int) -> np.ndarray:
    """``h`` (cells, *tallies, F) with its last axis, the final successes, turned into the models
    they remove when each removes one with probability ``q[c]`` independently (Binomial(f, q)),
    saturated at ``up_to``."""
    cells, F = h.shape[0], h.shape[-1]
    if np.all(q == 1.0):
        thin = np.broadcast_to(np.eye(F), (cells, F, F))
    else:
        f = np.arange(F)
        thin = core.binomial_pmf(f[None, :], q[:, None], width=F)   # (cells, f, removed)
        thin = np.broadcast_to(thin, (cells, F, F))
    out = np.einsum("c...f,cfr->c...r", h, thin)
    return tally._fold(out, up_to)


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
