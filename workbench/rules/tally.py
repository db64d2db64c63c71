"""Counts beside the final successes, exact: random tokens per attack, criticals
switched by the stats, named tallies and the chances of conditions on them.

* ``attack.tokens_die = N``: each attack enters the first stage as 1..N
  tokens, each number equally likely (a blast's D3..D12 hits or shots); the
  distribution of one attack is the mixture ``(G + G^2 + ... + G^N) / N`` of
  the one-token distribution ``G``.
* ``on_critical_when``: where it is false a critical goes on as an ordinary
  success; the token rule sees P(critical) split into the part that uses
  ``on_critical`` and the part that does not (the criticals are still
  criticals: they are counted).
* A stage's ``tally`` counts the tokens passing it (as its effect does) and
  ``critical_tally`` the critical rolls at it. One token's count is a
  polynomial built from the last stage backwards like the final successes
  (see :mod:`workbench.rules.engine`): every outcome of a roll multiplies
  what follows by z to the number of counted events it is (passing this
  stage; a critical; the stages a ``"skip_next"`` or ``"to_end"`` critical
  passes without a roll). Over all attacks: the mixture over the tokens die,
  then the power ``count``.
* ``[[chances]]``: P(condition) summed over the distribution of the one
  count it reads (a tally, ``successes`` or ``removed``), cell by cell.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError
from .spec import Chance, RuleStage

__all__ = ["uses_counts", "tokens", "split_criticals", "mixture", "per_token", "count_effects",
           "chance", "CRITICALS"]

#: the tally of every critical roll at every stage (the "criticals" effect)
CRITICALS = "criticals"
#: numbers one count's distribution over all cells may hold
MAX_TABLE = 20_000_000


def uses_counts(parts: Mapping[str, Any]) -> bool:
    """Does the file use a mechanism this module resolves?"""
    return bool(parts.get("tokens_die") is not None or parts.get("chances")
                or any(st.on_critical_when is not None or st.tally or st.critical_tally
                       for st in parts["stages"]))


def tokens(parts: Mapping[str, Any], env: Mapping[str, Any], cells: int, check_value) -> np.ndarray | None:
    """Faces of each cell's tokens die (None without ``tokens_die``); 1 is one token."""
    expr = parts.get("tokens_die")
    if expr is None:
        return None
    from .loader import MAX_TOKENS_DIE
    n = check_value(expr, env, "attack.tokens_die", 1, MAX_TOKENS_DIE, "faces of the tokens die")
    return np.broadcast_to(np.asarray(n, dtype=np.int64), (cells,))


def critical_flags(stages: Sequence[RuleStage], env: Mapping[str, Any], cells: int) -> list[np.ndarray]:
    """Per stage, where (1.0) its ``on_critical`` applies."""
    out = []
    for i, st in enumerate(stages):
        if st.on_critical_when is None:
            out.append(np.ones(cells))
        else:
            f = st.on_critical_when.evaluate(env, f"stages[{i}].on_critical_when") != 0
            out.append(np.broadcast_to(f, (cells,)).astype(float))
    return out


def split_criticals(probs: Sequence[np.ndarray], flags: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The probabilities the token rule sees: a critical whose rule is off is an ordinary success."""
    out = []
    for (pf, ps, pc), f in zip(probs, flags):
        out.append(np.stack([pf, ps + pc * (1.0 - f), pc * f]))
    return out


def _pad(a: np.ndarray, width: int) -> np.ndarray:
    if a.shape[-1] >= width:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],))], axis=-1)


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """``a`` times z^k."""
    if k == 0:
        return a
    return np.concatenate([np.zeros(a.shape[:-1] + (k,)), a], axis=-1)


def _sum(*terms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Sum of weight (cells,) x polynomial (cells, k)."""
    width = max(t.shape[-1] for _, t in terms)
    out = np.zeros((terms[0][0].shape[0], width))
    for w, t in terms:
        out += w[:, None] * _pad(t, width)
    return out


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    for j in range(b.shape[1]):
        out[:, j: j + a.shape[1]] += a * b[:, j: j + 1]
    return out


def _power(g: np.ndarray, n: int) -> np.ndarray:
    out = np.ones((g.shape[0], 1))
    for _ in range(n):
        out = _conv(out, g)
    return out


def mixture(g: np.ndarray, n: np.ndarray) -> np.ndarray:
    """(G + G^2 + ... + G^n) / n for each cell's n (cells, k): 1..n tokens, equally likely."""
    top = int(n.max())
    total = np.zeros((g.shape[0], 1))
    p = np.ones((g.shape[0], 1))
    for j in range(1, top + 1):
        p = _conv(p, g)
        total = _pad(total, p.shape[-1]) + np.where((j <= n)[:, None], p, 0.0)
    return total / n[:, None]


def per_token(stages: Sequence[RuleStage], probs: Sequence[np.ndarray], flags: Sequence[np.ndarray],
              passed: Sequence[int], crits: Sequence[int]) -> np.ndarray:
    """Distribution (cells, k) of one token's count of events: tokens passing
    stage i count ``passed[i]`` (0 or 1) each, critical rolls at stage i ``crits[i]``."""
    n = len(stages)
    cells = probs[0].shape[1]
    one = np.ones((cells, 1))
    h: list[np.ndarray | None] = [None] * n + [one, one]
    later = [sum(passed[j] for j in range(i + 1, n)) for i in range(n)]
    for i in range(n - 1, -1, -1):
        st, (pf, ps, pc), f = stages[i], probs[i], flags[i]
        nxt = h[i + 1]
        if st.passes_on == "fail":
            h[i] = _sum((ps + pc, one), (pf, _shift(nxt, passed[i])))
            continue
        plain = _shift(nxt, passed[i] + crits[i])
        if st.on_critical == "extra":
            special = _shift(_power(nxt, 1 + st.extra), passed[i] + crits[i])
        elif st.on_critical == "skip_next":
            special = _shift(h[i + 2], passed[i] + crits[i] + (passed[i + 1] if i + 1 < n else 0))
        elif st.on_critical == "to_end":
            special = _shift(one, passed[i] + crits[i] + later[i])
        else:
            special = plain
        h[i] = _sum((pf, one), (ps, _shift(nxt, passed[i])), (pc * (1.0 - f), plain), (pc * f, special))
    return h[0]


def _mean(p: np.ndarray) -> np.ndarray:
    return p @ np.arange(p.shape[-1])


def count_effects(parts: Mapping[str, Any], probs: Sequence[np.ndarray], flags: Sequence[np.ndarray],
                  count: np.ndarray, n_tokens: np.ndarray | None, all_of) -> tuple[dict, dict]:
    """(effects, distributions over all attacks) of every named tally and of the criticals.

    ``probs`` are the dice's own P(fail, success, critical); ``all_of(g, count)``
    is the engine's power of one attack's distribution over ``count`` attacks.
    """
    stages = parts["stages"]
    n = len(stages)
    wanted = {CRITICALS: ([0] * n, [1] * n)}
    for i, st in enumerate(stages):
        if st.tally:
            wanted[st.tally] = ([int(j == i) for j in range(n)], [0] * n)
        if st.critical_tally:
            wanted[st.critical_tally] = ([0] * n, [int(j == i) for j in range(n)])
    needed = {c.count for c in parts.get("chances", ())}
    effects, dists = {}, {}
    for name, (passed, crits) in wanted.items():
        h = per_token(stages, probs, flags, passed, crits)
        if n_tokens is not None:
            h = mixture(h, n_tokens)
        effects[name] = count * _mean(h)
        if name in needed:
            width = int(count.max()) * (h.shape[-1] - 1) + 1
            if width * h.shape[0] > MAX_TABLE:
                raise InputError("chances", f"at most {MAX_TABLE} numbers for the distribution of a count",
                                 f"{width} values of {name} x {h.shape[0]} cells")
            dists[name] = all_of(h, count)
    return effects, dists


def chance(c: Chance, dist: np.ndarray, env: Mapping[str, Any]) -> np.ndarray:
    """P(``c.when``) per cell from the distribution (cells, k) of the count it reads."""
    cells, width = dist.shape
    env2 = {k: np.asarray(v)[:, None] if np.ndim(v) else v for k, v in env.items()}
    env2[c.count] = np.arange(width)[None, :]
    cond = np.broadcast_to(c.when.evaluate(env2, f"chances[{c.index}].when") != 0, (cells, width))
    return (dist * cond).sum(axis=1)


def sampled_chance(c: Chance, values: np.ndarray, env: Mapping[str, Any]) -> np.ndarray:
    """Per sample: is ``c.when`` true for the sample's count."""
    env2 = {k: np.asarray(v) for k, v in env.items()}
    env2[c.count] = np.asarray(values, dtype=np.int64)
    return np.broadcast_to(c.when.evaluate(env2, f"chances[{c.index}].when") != 0, np.shape(values))
