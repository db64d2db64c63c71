"""The per-die state pieces of the hand-written Forgotten resolvers (tests/reference/forgotten.py,
forgotten_cc.py), kept with them as oracles: one die judged by two tests, and the state update of a
target taking a kill (heroic save, tough).
"""
from __future__ import annotations

import numpy as np


def _judge_both(pair, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One rolled die judged by two tests (e.g. a save before and after the
    model is wounded at -1): which rolls pass each."""
    return tuple(t.is_success(t.evaluate(faces)) for t in pair)


def _absorb_step(state, kill, save_fresh, save_wounded, tough: bool, wounded_below: int = 0):
    """One possible kill on the target, as a state update.

    ``state[..., d, w]`` = P(d models downed so far, w = the model in front is
    wounded). With probability ``kill`` a kill lands; the hero saves with
    ``save_fresh`` (unwounded) or ``save_wounded`` (wounded: -1); an unsaved
    kill wounds a fresh tough model, otherwise downs the model (d + 1). The
    next model is fresh, unless the unit started with ``wounded_below``
    models already wounded and fewer than that are down (kills go to the
    wounded models first). The last count absorbs overflow. Works on float
    arrays and on object arrays of Fractions alike.
    """
    p0 = state[..., 0]
    p1 = state[..., 1]
    k = kill[..., None] if np.ndim(kill) else kill
    sf = save_fresh[..., None] if np.ndim(save_fresh) else save_fresh
    sw = save_wounded[..., None] if np.ndim(save_wounded) else save_wounded
    hit_fresh = k * (1 - sf)       # unsaved kill on a fresh model
    hit_wounded = k * (1 - sw)     # unsaved kill on a wounded model
    new = np.zeros_like(state)
    if tough:
        down_from_fresh = p0 * 0
        new[..., 1] = p1 * (1 - hit_wounded) + p0 * hit_fresh
        new[..., 0] = p0 * (1 - hit_fresh)
    else:
        down_from_fresh = p0 * hit_fresh
        new[..., 1] = p1 * (1 - hit_wounded)
        new[..., 0] = p0 * (1 - hit_fresh)
    downs = down_from_fresh + p1 * hit_wounded   # move to d + 1: wounded while d + 1 < wounded_below
    k = min(max(wounded_below - 1, 0), state.shape[-2] - 1)
    new[..., 1:1 + k, 1] = new[..., 1:1 + k, 1] + downs[..., :k]
    new[..., 1 + k:, 0] = new[..., 1 + k:, 0] + downs[..., k:-1]
    new[..., -1, 0] = new[..., -1, 0] + downs[..., -1]
    return new
