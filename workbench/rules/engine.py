"""Exact resolution of a rule file, vectorised over stat grids.

1. Each stage's die (:class:`~workbench.rules.die.StageDie`) gives integer
   counts of fail / success / critical over ``die`` (or ``die``\\ ² with a
   re-roll) rolls: exact probabilities.
2. Tokens: each attack starts as one token at the first stage. ``G_i`` is
   the distribution of final successes that one token rolling at stage ``i``
   produces (a short polynomial), built from the last stage backwards:

   * a failed roll gives nothing; a success (or a ``"none"`` critical) goes
     on as one token: ``G_{i+1}``;
   * an ``"extra"`` critical goes on as ``1 + extra`` independent tokens:
     ``G_{i+1}`` to that power;
   * a ``"skip_next"`` critical passes stage ``i + 1`` without a roll and
     rolls at stage ``i + 2``: ``G_{i+2}`` (a final success past the end);
   * a ``"to_end"`` critical is one final success;
   * on a ``passes_on = "fail"`` stage a failed roll goes on and a
     successful one stops the token.

   The final successes of ``count`` attacks are ``G_0`` to the power
   ``count``: a binomial when one attack scores at most one success.
3. Removal, as a distribution over models removed. A fixed damage per
   success has closed forms: without spill each model takes
   ``ceil(wounds / damage)`` successes, so ``k`` successes remove
   ``min(models, k // ceil(wounds / damage))``; with spill
   ``min(models, k * damage // wounds)``. Only a rolled damage without
   spill needs a Markov chain over (models removed, wounds left on the
   current model), applied one success at a time (damage beyond the current
   model's wounds, or after the unit is destroyed, is wasted); a rolled
   damage with spill totals the successes' damage and divides it. A pooled
   ``removed`` formula maps each number of successes to models removed.
   ``models`` caps every count (:func:`workbench.engine.remap`, the one fold).

Budgets (docs/rulefiles.md, "Budgets"): before any table is built the work
is estimated from the file and the stats (the most tokens one attack can
make, the unit states, the multiply-adds of the chain) and a resolution past
a budget is refused at once with a :class:`~workbench.rules.errors.BudgetError`
naming the field.

Everything works on cells: every stat is a 1-D array of the same length, so
a sweep of a thousand cells is one call. Cells sharing a unit (models,
wounds, damage) share one Markov chain.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence, TypeVar

import numpy as np

from .. import engine as core
from ..errors import InputError
from . import tally, wounds as by_model
from .die import StageDie
from .errors import BudgetError
from .expr import Expr, _cells
from .spec import Removal, RuleStage

__all__ = ["stage_dice", "prepare", "resolve", "finish", "check_value", "MAX_ATTACKS", "MAX_SUCCESSES", "MAX_STATES",
           "MAX_TABLE", "MAX_WORK", "damage_distribution", "token_bounds", "check_tokens",
           "per_attack_figures", "stage_pass_pmfs"]

#: attacks of one resolution (as many as the tokens of one resolution: 40k Changes' 10,000 dice)
MAX_ATTACKS = 10_000
#: tokens one resolution may hold: the most final successes of all its attacks, and the most
#: tokens that can roll at any one stage (attacks x what criticals multiply)
MAX_SUCCESSES = 10_000
#: unit states (models x wounds) of the unit-state chain
MAX_STATES = 20_000
#: numbers held by one distribution table (successes x unit states, cells x successes): about 160 MB
MAX_TABLE = 20_000_000
#: multiply-adds of the unit-state chain or of a rolled damage's totals: well under a second
MAX_WORK = 50_000_000


def check_value(expr: Expr, env: Mapping[str, Any], field: str, lo: int | None, hi: int | None,
                what: str) -> np.ndarray:
    """Evaluate ``expr`` and check every cell lies in ``[lo, hi]``; the error
    names the field, the allowed range, the value and the stats it came from."""
    x = expr.evaluate(env, field)
    if x.size == 1:              # one value, or the same in every cell: Python integers
        one = int(x.item())
        if (lo is None or one >= lo) and (hi is None or one <= hi):
            return x
    elif x.size == 0 or ((lo is None or x.min() >= lo) and (hi is None or x.max() <= hi)):
        return x
    bad = np.zeros(np.shape(x), dtype=bool)
    if lo is not None:
        bad |= x < lo
    if hi is not None:
        bad |= x > hi
    if bad.any():
        value = int(np.asarray(x)[bad].ravel()[0]) if np.ndim(x) else int(x)
        rng = (f"from {lo} to {hi}" if lo is not None and hi is not None else
               f"{lo} or more" if lo is not None else f"{hi} or less")
        origin = _cells(env, expr, bad) if expr.names else ""
        got = f"{value} from '{expr.source}'" + (f" with {origin}" if origin else "")
        raise InputError(field, f"{what} {rng}", got)
    return x


def stage_dice(stages: Sequence[RuleStage], env: Mapping[str, Any]) -> list[StageDie]:
    """The die of every stage for these stat values (targets may be arrays)."""
    out = []
    for i, st in enumerate(stages):
        target = st.target.evaluate(env, f"stages[{i}].target")
        modifier = 0 if st.modifier is None else st.modifier.evaluate(env, f"stages[{i}].modifier")
        critical_on = (True if st.critical_when is None else
                       np.asarray(st.critical_when.evaluate(env, f"stages[{i}].critical_when")) != 0)
        out.append(StageDie(sides=st.die, roll_high=st.roll == "high", target=target, modifier=modifier,
                            always_fail=st.always_fail, always_succeed=st.always_succeed,
                            critical=st.critical, reroll=st.reroll, critical_on=critical_on,
                            long_shot=st.long_shot, near_miss=bool(st.near_miss_tally)))
    return out


def damage_distribution(roll) -> np.ndarray:
    """P(damage = k), k = 0..max, of a :class:`~workbench.rules.spec.DamageRoll` (exact convolution)."""
    one = np.zeros(roll.sides + 1)
    one[1:] = 1.0 / roll.sides
    out = np.ones(1)
    for _ in range(roll.dice):
        out = np.convolve(out, one)
    if roll.plus >= 0:
        return np.concatenate([np.zeros(roll.plus), out])
    return out[-roll.plus:]


# ---------------------------------------------------------------------------
# tokens
# ---------------------------------------------------------------------------
def _pad(a: np.ndarray, width: int) -> np.ndarray:
    if a.shape[-1] >= width:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],))], axis=-1)


def _add(*terms: np.ndarray) -> np.ndarray:
    width = max(t.shape[-1] for t in terms)
    out = _pad(terms[0], width).copy()
    for t in terms[1:]:
        out += _pad(t, width)
    return out


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape[0] == 1 and b.shape[0] == 1:
        return np.convolve(a[0], b[0])[None, :]
    if a.shape[-1] > b.shape[-1]:
        a, b = b, a
    return core.convolve(a, b)


def _power(g: np.ndarray, n: int) -> np.ndarray:
    out = np.ones(g.shape[:-1] + (1,))
    base = g
    while n:
        if n & 1:
            out = _conv(out, base)
        n >>= 1
        if n:
            base = _conv(base, base)
    return out


def _trim(a: np.ndarray) -> np.ndarray:
    """Drop trailing counts that no cell reaches."""
    nz = np.flatnonzero(a.reshape(-1, a.shape[-1]).any(axis=0))
    return a[..., : (nz[-1] + 1 if nz.size else 1)]


_T = TypeVar("_T")


def _given(value: _T | None, what: str) -> _T:
    """A value the caller has made sure is there (a later stage's distribution the backward
    loop has filled in; wounds or damage, which the loader always gives a removal without
    a pooled formula)."""
    if value is None:
        raise RuntimeError(f"no {what}")
    return value


def per_attack(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> np.ndarray:
    """Distribution (cells, k) of one attack's final successes; ``probs[i]`` is
    (3, cells): P(fail), P(success), P(critical) of stage i's roll."""
    cells = probs[0].shape[1]
    final = np.zeros((cells, 2))
    final[:, 1] = 1.0
    nothing = np.zeros((cells, 1))
    nothing[:, 0] = 1.0
    n = len(stages)
    g: list[np.ndarray | None] = [None] * n + [final, final]
    for i in range(n - 1, -1, -1):
        st, (pf, ps, pc) = stages[i], probs[i]
        nxt = _given(g[i + 1], "distribution of the next stage")
        if st.passes_on == "fail":
            g[i] = _add((ps + pc)[:, None] * nothing, pf[:, None] * nxt)
            continue
        if st.on_critical == "extra":
            crit = _power(nxt, 1 + st.extra)
        elif st.on_critical == "skip_next":
            crit = _given(g[i + 2], "distribution of the stage after next")
        elif st.on_critical == "to_end":
            crit = final
        else:
            crit = nxt
        g[i] = _add(pf[:, None] * nothing, ps[:, None] * nxt, pc[:, None] * crit)
    return _given(g[0], "distribution of the first stage")


def expected_tokens(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> tuple[list, np.ndarray]:
    """Per attack: expected tokens passing each stage, and expected critical successes.

    A token passes a stage when its roll lets it go on, when it passes the
    stage without a roll after a ``"skip_next"`` critical, or when a
    ``"to_end"`` critical earlier sent it past every remaining stage.
    """
    cells = probs[0].shape[1]
    rolling = np.ones(cells)       # tokens that roll at this stage
    skipping = np.zeros(cells)     # tokens that pass it without a roll
    to_end = np.zeros(cells)       # tokens sent to the end by an earlier stage
    passes, crits = [], np.zeros(cells)
    for st, (pf, ps, pc) in zip(stages, probs):
        go = pf if st.passes_on == "fail" else ps + pc
        passes.append(rolling * go + skipping + to_end)
        crits = crits + rolling * pc
        if st.passes_on == "fail":
            nxt = rolling * pf
        else:
            mult = {"none": 1, "extra": 1 + st.extra, "skip_next": 0, "to_end": 0}[st.on_critical]
            nxt = rolling * (ps + pc * mult)
        nxt_skip = rolling * pc if st.on_critical == "skip_next" else np.zeros(cells)
        if st.on_critical == "to_end":
            to_end = to_end + rolling * pc
        rolling, skipping = nxt + skipping, nxt_skip
    return passes, crits


def successes(g0: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Distribution (cells, N) of the final successes of ``count[c]`` attacks in each cell.

    One attack scoring at most one success: the binomial (closed form);
    otherwise ``G_0`` to the power ``count`` by repeated squaring."""
    g0 = _trim(g0)
    uniform = bool(np.all(count == count[0]))
    if g0.shape[-1] <= 2:
        p = g0[:, 1] if g0.shape[-1] == 2 else np.zeros(g0.shape[0])
        n = int(count[0]) if uniform else count
        return core.binomial_pmf(n, p, width=int(count.max()) + 1)
    if uniform:
        return _power(g0, int(count[0]))
    n_max = int(count.max())
    out = np.zeros((g0.shape[0], n_max * (g0.shape[-1] - 1) + 1))
    p = np.ones((g0.shape[0], 1))
    for n in range(n_max + 1):
        sel = count == n
        if sel.any():
            out[sel, : p.shape[-1]] = p[sel]
        if n < n_max:
            p = core.convolve(g0, p)
    return out


def per_attack_figures(stages: Sequence[RuleStage], fractions: Sequence[tuple]) -> tuple:
    """(expected final successes of one attack, P(one attack scores at least one)), exact from
    each stage's (P(fail), P(success), P(critical)) Fractions.

    Backwards over the stages as :func:`per_attack`, but only the mean ``m_i``
    and the chance of nothing ``z_i`` of ``G_i`` (an ``"extra"`` critical's
    ``1 + extra`` tokens: ``(1 + extra) m_{i+1}`` and ``z_{i+1} ** (1 + extra)``).
    When the criticals multiply tokens more than 64 times the Fractions would
    grow without bound, and floats are returned."""
    mult = 1
    for st in stages:
        if _multiplies(st):
            mult *= 1 + st.extra
    conv = (lambda x: x) if mult <= 64 else float
    n = len(stages)
    m: list = [None] * n + [1, 1]
    z: list = [None] * n + [0, 0]
    for i in range(n - 1, -1, -1):
        st = stages[i]
        pf, ps, pc = (conv(x) for x in fractions[i])
        if st.passes_on == "fail":
            m[i], z[i] = pf * m[i + 1], ps + pc + pf * z[i + 1]
            continue
        how = st.on_critical if st.critical else "none"
        if how == "extra":
            cm, cz = (1 + st.extra) * m[i + 1], z[i + 1] ** (1 + st.extra)
        elif how == "skip_next":
            cm, cz = m[i + 2], z[i + 2]
        elif how == "to_end":
            cm, cz = 1, 0
        else:
            cm, cz = m[i + 1], z[i + 1]
        m[i] = ps * m[i + 1] + pc * cm
        z[i] = pf + ps * z[i + 1] + pc * cz
    return m[0], 1 - z[0]


def stage_pass_pmfs(stages: Sequence[RuleStage], probs: Sequence[np.ndarray],
                    count: np.ndarray, n_tokens: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """For each stage, the distribution (cells, k) of how many tokens pass it over all
    ``count`` attacks (a token passes a stage when its roll lets it go on, when it passes the
    stage without a roll after a ``"skip_next"`` critical, or after an earlier ``"to_end"``
    critical): the recursion of :func:`per_attack` stopped at that stage. ``n_tokens``: each
    cell's tokens die (an attack enters as 1..n tokens, :func:`~workbench.rules.tally.mixture`)."""
    cells = probs[0].shape[1]
    one = np.zeros((cells, 2))
    one[:, 1] = 1.0
    nothing = np.zeros((cells, 1))
    nothing[:, 0] = 1.0
    out = {}
    for s, st_s in enumerate(stages):
        pf, ps, pc = probs[s]
        go = pf if st_s.passes_on == "fail" else ps + pc
        h: list = [None] * (s + 2)
        h[s] = _add((1 - go)[:, None] * nothing, go[:, None] * one)
        h[s + 1] = one        # a token past stage s (a skip landing beyond it) has passed it
        for j in range(s - 1, -1, -1):
            st, (pf, ps, pc) = stages[j], probs[j]
            if st.passes_on == "fail":
                h[j] = _add((ps + pc)[:, None] * nothing, pf[:, None] * h[j + 1])
                continue
            how = st.on_critical if st.critical else "none"
            if how == "extra":
                crit = _power(h[j + 1], 1 + st.extra)
            elif how == "skip_next":
                crit = one if j + 1 == s else h[j + 2]
            elif how == "to_end":
                crit = one
            else:
                crit = h[j + 1]
            h[j] = _add(pf[:, None] * nothing, ps[:, None] * h[j + 1], pc[:, None] * crit)
        out[st_s.name] = successes(h[0] if n_tokens is None else tally.mixture(h[0], n_tokens), count)
    return out


# ---------------------------------------------------------------------------
# budgets: the work estimated from the file before it is done
# ---------------------------------------------------------------------------
def _multiplies(st: RuleStage) -> bool:
    return bool(st.critical) and st.passes_on != "fail" and st.on_critical == "extra" and st.extra > 0


def token_bounds(stages: Sequence[RuleStage]) -> tuple[int, int]:
    """(the most final successes one attack can score, the most tokens of one attack that can
    roll at any one stage), counted from the file alone (Python integers: no overflow)."""
    n = len(stages)
    most = [0] * n + [1, 1]
    for i in range(n - 1, -1, -1):
        st = stages[i]
        best = most[i + 1]
        if st.critical and st.passes_on != "fail":
            if st.on_critical == "extra":
                best = max(best, (1 + st.extra) * most[i + 1])
            elif st.on_critical == "skip_next":
                best = max(best, most[i + 2])
        most[i] = best
    rolling, widest = 1, 1
    for st in stages:
        widest = max(widest, rolling)
        if _multiplies(st):
            rolling *= 1 + st.extra
    return most[0], max(widest, rolling)


def check_tokens(stages: Sequence[RuleStage], attacks: int, path: Any = "<rule file>",
                 bounds: tuple[int, int] | None = None, tokens_die: int = 1) -> None:
    """Refuse, before any work, a resolution whose tokens could pass :data:`MAX_SUCCESSES`
    (exact and sampled alike: the sampled path holds every token of a sample); ``bounds``:
    :func:`token_bounds` of the stages when already known; ``tokens_die``: the most tokens
    an attack enters as (``attack.tokens_die``)."""
    finals, rolling = bounds or token_bounds(stages)
    most = max(finals, rolling)
    if most > MAX_SUCCESSES:
        i = next(i for i, st in enumerate(stages) if _multiplies(st))
        raise BudgetError(path, f"stages[{i}].extra", f"criticals that make at most {MAX_SUCCESSES:,} tokens "
                          "from one attack (each extra multiplies the tokens of every later stage)",
                          f"{most:,} tokens from one attack")
    most *= max(1, tokens_die)
    if attacks * most > MAX_SUCCESSES:
        raise BudgetError(path, "attack.count", f"at most {MAX_SUCCESSES:,} tokens in one resolution "
                          f"(attacks x {most:,} tokens one attack can make"
                          + (f": up to {tokens_die:,} entering from the tokens die" if tokens_die > 1 else "") + ")",
                          f"{attacks:,} attacks, {attacks * most:,} tokens")


def _work(path: Any, n_max: int, states: int, per_step: int, cells: int, what: str) -> None:
    if (n_max + 1) * states > MAX_TABLE or n_max * states * per_step > MAX_WORK:
        raise BudgetError(path, "removal", f"at most {MAX_TABLE:,} (successes x {what}) and "
                          f"{MAX_WORK:,} steps of arithmetic to resolve exactly",
                          f"{n_max:,} successes x {states:,} {what}", "method='sampled' has no such limit")


# ---------------------------------------------------------------------------
# removal
# ---------------------------------------------------------------------------
def _fixed_index(k: np.ndarray, models, wounds, damage, spill: bool) -> tuple[np.ndarray, np.ndarray]:
    """Models removed and damage wasted by ``k`` successes of a fixed ``damage`` (closed forms;
    every argument broadcasts, ``models`` None: no unit size)."""
    if isinstance(damage, int) and isinstance(wounds, int) and not spill:   # one cell: Python integers
        if damage <= 0:
            return np.zeros(np.shape(k), dtype=np.int64), np.zeros(np.shape(k))
        each = -(-wounds // damage)  # successes per model
        removed = k // each
        if models is None:
            return removed, removed * (each * damage - wounds)
        removed = np.minimum(removed, models)
        return removed, removed * (each * damage - wounds) + np.maximum(k - models * each, 0) * damage
    if spill:
        total = k * damage
        removed = total // wounds
        if models is None:
            return removed, np.zeros(np.shape(removed))
        return np.minimum(removed, models), np.maximum(total - models * wounds, 0)
    # each model takes ceil(wounds / damage) successes; its last one wastes what goes past its wounds
    per_model = np.where(damage > 0, -(-wounds // np.maximum(damage, 1)), MAX_SUCCESSES + 1)
    removed = k // per_model
    if models is None:
        return removed, removed * (per_model * damage - wounds)
    removed = np.minimum(removed, models)
    past = np.maximum(k - models * per_model, 0)     # successes after the unit is destroyed
    return removed, removed * (per_model * damage - wounds) + past * damage


def fixed_damage_removal(p: np.ndarray, models: int | None, wounds: int, damage: int,
                         spill: bool) -> tuple[np.ndarray, float]:
    """One cell of :func:`per_success_removal` with a fixed damage: the pmf of models removed
    for ``p[k]`` = P(k successes), and the expected damage wasted (the closed forms of
    :func:`_fixed_index` with Python integers)."""
    k = np.arange(p.size)
    removed, waste = _fixed_index(k, models, wounds, damage, spill)
    width = models + 1 if models is not None else int(removed[np.flatnonzero(p).max(initial=0)]) + 1
    return core.remap(p, np.minimum(removed, width - 1), width), float(p @ waste)


def _chain(p_n: np.ndarray, models: int | None, wounds: int, damage: Sequence[tuple[int, float]],
           path: Any) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage without spill: the unit's state after each success, one at a time.

    States: (models removed r, wounds left w on the current model), plus one
    "destroyed" state with a unit size. Returns the pmf (cells, width) of
    models removed and the expected damage wasted (cells,)."""
    W, M = wounds, models
    cells, width_n = p_n.shape
    n_max = width_n - 1
    rows = n_max + 1 if M is None else M          # models that can still be hit
    n_states = rows * W + (0 if M is None else 1)
    if n_states > MAX_STATES:
        raise BudgetError(path, "removal", f"a unit of at most {MAX_STATES:,} model-wound states "
                          "(models x wounds)", f"{rows:,} models x {W:,} wounds")
    _work(path, n_max, n_states, len(damage) + cells, cells, "model-wound states")
    r = np.repeat(np.arange(rows), W)
    w = np.tile(np.arange(W, 0, -1), rows)        # wounds left: W, W-1, ..., 1
    if M is not None:
        r, w = np.append(r, M), np.append(w, 0)
    dead = w == 0
    dests, weights = [], []
    wexp = np.zeros(n_states)
    for d, q in damage:
        kill = (d >= w) & ~dead
        nr = np.where(kill, r + 1, r)
        nw = np.where(kill, W, w - d)
        if M is None:
            nr = np.minimum(nr, rows - 1)
            dest = nr * W + (W - nw)
        else:
            dest = np.where(dead | (nr >= M), M * W, np.minimum(nr, M - 1) * W + (W - nw))
        dests.append(dest)
        weights.append(q)
        wexp += q * np.where(dead, d, np.where(kill, d - w, 0))
    dest = np.concatenate(dests)
    q_all = np.repeat(np.asarray(weights), n_states)
    V = np.empty((n_max + 1, n_states))
    v = np.zeros(n_states)
    v[M * W if M == 0 else 0] = 1.0
    for n in range(n_max + 1):
        V[n] = v
        if n < n_max:
            v = np.bincount(dest, weights=q_all * np.tile(v, len(weights)), minlength=n_states)
    removed = r if M is None else np.append(np.repeat(np.arange(M), W), M)
    by_removed = np.zeros((n_states, int(removed.max()) + 1))
    by_removed[np.arange(n_states), removed] = 1.0
    # the n-th success wastes V[n-1] @ wexp on average; k successes waste the sum up to k
    wasted_after = np.concatenate([[0.0], np.cumsum(V[:-1] @ wexp)])
    return p_n @ (V @ by_removed), p_n @ wasted_after


def _spill_roll(p_n: np.ndarray, models: int | None, wounds: int, roll: np.ndarray,
                path: Any) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage with spill: the total damage of the successes (their
    distribution mixed over the number of successes), divided by the wounds."""
    cells, width_n = p_n.shape
    n_max = width_n - 1
    dmax = roll.size - 1
    _work(path, n_max, n_max * dmax + 1, roll.size + cells, cells, "total damage")
    total = np.zeros((cells, n_max * dmax + 1))
    s = np.ones(1)
    for n in range(n_max + 1):                      # P(total = t) = sum_n P(n successes) P(t | n)
        total[:, : s.size] += p_n[:, n, None] * s
        if n < n_max:
            s = np.convolve(s, roll)
    t = np.arange(total.shape[1])
    removed, wasted = _fixed_index(t, models, wounds, 1, True)
    return core.remap(total, removed, int(removed.max()) + 1), total @ wasted


def per_success_removal(p_n: np.ndarray, models: np.ndarray | None, wounds: np.ndarray,
                        damage: np.ndarray | None, roll_dist: np.ndarray | None,
                        spill: bool, path: Any = "<rule file>") -> tuple[np.ndarray, np.ndarray]:
    """pmf (cells, width) of models removed and expected wasted damage (cells,)."""
    cells, width_n = p_n.shape
    if roll_dist is None:                          # closed forms, every cell at once
        k = np.arange(width_n)[None, :]
        m = None if models is None else np.asarray(models)[:, None]
        removed, waste = _fixed_index(k, m, np.asarray(wounds)[:, None], np.asarray(damage)[:, None], spill)
        removed = np.broadcast_to(removed, p_n.shape)
        width = int(np.where(p_n > 0, removed, 0).max()) + 1
        return core.remap(p_n, np.minimum(removed, width - 1), width), (p_n * waste).sum(axis=-1)
    last = width_n - 1 - np.argmax(p_n[:, ::-1] > 0, axis=1)
    cols = [(-1 if models is None else models), wounds]
    keys = np.stack([np.broadcast_to(np.asarray(c, dtype=np.int64), (cells,)) for c in cols], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    dmg = tuple((k, float(q)) for k, q in enumerate(roll_dist) if q > 0)
    parts, wasted = [], np.zeros(cells)
    for gi, (m, w) in enumerate(uniq):
        sel = inverse == gi
        unit = None if m < 0 else int(m)
        pn = p_n[sel, : int(last[sel].max()) + 1]
        pmf, waste = (_spill_roll(pn, unit, int(w), roll_dist, path) if spill
                      else _chain(pn, unit, int(w), dmg, path))
        parts.append((sel, pmf))
        wasted[sel] = waste
    width = max(p.shape[-1] for _, p in parts)
    pmf = np.zeros((cells, width))
    for sel, p in parts:
        pmf[sel, : p.shape[-1]] = p
    return pmf, wasted


def pooled_removal(p_n: np.ndarray, removed: Expr, env: Mapping[str, Any],
                   models: np.ndarray | None) -> np.ndarray:
    """pmf (cells, width) of models removed by the pooled formula of the successes."""
    cells, width_n = p_n.shape
    env2 = {k: np.asarray(v)[:, None] for k, v in env.items()}
    env2["successes"] = np.arange(width_n)[None, :]
    index = check_value(removed, env2, "removal.removed", 0, MAX_SUCCESSES, "a number of models")
    index = np.broadcast_to(index, (cells, width_n))
    if models is not None:
        index = np.minimum(index, np.asarray(models)[:, None])
    # only counts that can happen decide the width
    width = int(np.where(p_n > 0, index, 0).max()) + 1
    return core.remap(p_n, np.minimum(index, width - 1), width)


# ---------------------------------------------------------------------------
# the whole resolution
# ---------------------------------------------------------------------------
def stage_probabilities(dice: Sequence[StageDie], cells: int) -> tuple[list, list]:
    """(P(fail), P(success), P(critical)) arrays (3, cells) of every stage's die, and the
    integer counts with their denominators they come from."""
    probs, all_counts = [], []
    for die in dice:
        counts, denom = die.counts()
        all_counts.append((counts, denom))
        p = counts / denom
        probs.append(np.broadcast_to(p if p.ndim > 1 else p[:, None], (3, cells)))
    return probs, all_counts


def prepare(parts: Mapping[str, Any], env: Mapping[str, np.ndarray], cells: int,
            n_tokens: np.ndarray | None) -> dict:
    """The half of a resolution that depends neither on the number of attacks nor on the unit:
    the stages' dice and probabilities, one attack's distribution of final successes, the
    expected tokens passing each stage per attack and (files using the mechanisms of
    :mod:`workbench.rules.tally`) one attack's counts, and its joint of tallies and final
    successes for each chance reading ``removed`` beside tallies. A scalar resolution keeps it with the
    stages' dice it was made from (:meth:`~workbench.rules.RuleSystem._plan`)."""
    stages: Sequence[RuleStage] = parts["stages"]
    dice = stage_dice(stages, env)
    probs, all_counts = stage_probabilities(dice, cells)
    counts = flags = None
    dice_probs = probs  # the dice's own P(fail, success, critical), before criticals are split off
    if tally.uses_counts(parts):  # random tokens per attack, criticals switched by the stats, tallies and chances
        flags = tally.critical_flags(stages, env, cells)
        counts = tally.token_counts(parts, probs, flags, n_tokens, dice=dice)
        probs = tally.split_criticals(probs, flags)
    g0 = per_attack(stages, probs)
    if n_tokens is not None:
        g0 = tally.mixture(g0, n_tokens)
    passes, crits = expected_tokens(stages, probs)
    # one attack's joint of the tallies and final successes of each chance reading removed beside them
    joints = {c.name: by_model.attack_joint(c, stages, dice_probs, flags, dice, n_tokens)
              for c in parts.get("chances", ()) if counts is not None and by_model.reads_removal(c)}
    return {"dice": dice, "probs": probs, "counts": all_counts, "g0": g0, "passes": passes, "crits": crits,
            "tally": counts, "dice_probs": dice_probs, "flags": flags, "joints": joints}


def resolve(parts: Mapping[str, Any], env: Mapping[str, np.ndarray], prepared: Mapping[str, Any] | None = None) -> dict:
    """Exact pmf (cells, width) and effects (cells,) for stat arrays of one length.

    Files using the mechanisms of :mod:`workbench.rules.tally` (random tokens
    per attack, switched criticals, tallies, chances) add their counts to the
    effects; the budgets count an attack as its most tokens. ``prepared``: what
    :func:`prepare` gave for these stats' dice (and tokens die), when already known."""
    stages: Sequence[RuleStage] = parts["stages"]
    removal: Removal = parts["removal"]
    path = parts.get("path", "<rule file>")
    count = check_value(parts["count"], env, "attack.count", 0, MAX_ATTACKS, "a number of attacks")
    cells = max([np.size(v) for v in env.values()] + [1])
    count = np.broadcast_to(count, (cells,))
    counted = tally.uses_counts(parts)
    n_tokens = tally.tokens(parts, env, cells, check_value) if counted else None
    per_attack_tokens = 1 if n_tokens is None else int(n_tokens.max())
    bounds = parts.get("bounds") or token_bounds(stages)
    check_tokens(stages, int(count.max()), path, bounds, tokens_die=per_attack_tokens)
    if cells * (int(count.max()) * per_attack_tokens * bounds[0] + 1) > MAX_TABLE:
        raise BudgetError(path, "attack.count", f"at most {MAX_TABLE:,} (cells of a sweep x possible "
                          "final successes) to resolve exactly", f"{cells:,} cells")
    models = None
    if removal.models is not None:
        models = np.broadcast_to(check_value(removal.models, env, "removal.models", 0, MAX_STATES,
                                             "a number of models"), (cells,))
    pre = prepared if prepared is not None else prepare(parts, env, cells, n_tokens)
    wounds = damage = None
    if removal.removed is None and not removal.by_model:  # damage per success
        wounds = np.broadcast_to(check_value(_given(removal.wounds, "removal.wounds"), env, "removal.wounds", 1,
                                             MAX_STATES, "wounds per model"), (cells,))
        if removal.damage_roll is None:
            damage = np.broadcast_to(check_value(_given(removal.damage, "removal.damage"), env, "removal.damage", 0,
                                                 MAX_STATES, "damage per success"), (cells,))
    return finish(parts, env, pre, count, n_tokens, models, wounds, damage)


def remove(removal: Removal, env: Mapping[str, np.ndarray], p_n: np.ndarray, models: np.ndarray | None,
           wounds: np.ndarray | None, damage: np.ndarray | None, path: Any = "<rule file>") -> tuple:
    """The file's removal of the final successes ``p_n`` (cells, successes): (the pmf of models
    removed (cells, width), the expected wasted damage (cells,), the unit of a model-by-model
    removal or None). With a unit size the pmf runs 0..models, as the built-in systems' do."""
    cells = p_n.shape[0]
    unit = None  # a model-by-model removal's saves, tough models and wounded models
    if removal.removed is not None:  # removal.pooled
        pmf = pooled_removal(p_n, removal.removed, env, models)
        wasted = np.zeros(cells)
    elif removal.by_model:  # a save reading wounded, tough models, models that start wounded
        unit = by_model.unit(removal, env, cells, models, check_value)
        pmf, wasted = by_model.exact(p_n, models, unit, path)
    elif cells == 1 and removal.damage_roll is None:  # one cell of a fixed damage: Python integers
        one, waste = fixed_damage_removal(p_n[0], None if models is None else int(models[0]),
                                          int(_given(wounds, "wounds")[0]), int(_given(damage, "damage")[0]),
                                          removal.spill)
        pmf, wasted = one[None, :], np.array([waste])
    else:
        roll = None if removal.damage_roll is None else damage_distribution(removal.damage_roll)
        pmf, wasted = per_success_removal(p_n, models, _given(wounds, "wounds"), damage, roll, removal.spill, path)
    if models is not None:
        pmf = _pad(pmf, int(models.max()) + 1)
    return pmf, wasted, unit


def finish(parts: Mapping[str, Any], env: Mapping[str, np.ndarray], pre: Mapping[str, Any], count: np.ndarray,
           n_tokens: np.ndarray | None, models: np.ndarray | None, wounds: np.ndarray | None,
           damage: np.ndarray | None) -> dict:
    """The half of :func:`resolve` that depends on the attacks and the unit: the successes of
    ``count`` attacks from :func:`prepare`'s ``pre``, their removal and every effect. ``count``,
    ``models``, ``wounds`` and ``damage`` (cells,) are checked already (``wounds`` and
    ``damage`` are None with a pooled formula, ``damage`` with a rolled damage)."""
    stages: Sequence[RuleStage] = parts["stages"]
    removal: Removal = parts["removal"]
    p_n = successes(pre["g0"], count)
    pmf, wasted, unit = remove(removal, env, p_n, models, wounds, damage, parts.get("path", "<rule file>"))
    effects = {"criticals": count * pre["crits"], "wasted_damage": wasted}
    for st, p in zip(stages, pre["passes"]):
        effects[st.name] = count * p
    if pre["tally"] is not None:
        if n_tokens is not None:
            for st in stages:
                effects[st.name] = effects[st.name] * (n_tokens + 1) / 2
        effects.update(tally.count_effects(pre["tally"], count))
        read_removal = [c for c in parts.get("chances", ()) if by_model.reads_removal(c)]
        for c in read_removal:  # removed beside tallies: the attacks stepped one by one
            h = pre.get("joints", {}).get(c.name)
            if h is None:
                h = by_model.attack_joint(c, stages, pre["dice_probs"], pre["flags"], pre["dice"], n_tokens)
            effects[c.name] = by_model.joint_chance(c, h, count, models, _given(unit, "a model-by-model removal"),
                                                     env, parts.get("path", "<rule file>"))
        rest = {**parts, "chances": [c for c in parts.get("chances", ()) if c not in read_removal]}
        effects.update(tally.chances(rest, pre["tally"], count, successes, env, {"successes": p_n, "removed": pmf}))
    return {"pmf": pmf, "effects": effects, "dice": pre["dice"], "counts": pre["counts"], "count": count,
            "successes": p_n, "probs": pre["probs"]}
