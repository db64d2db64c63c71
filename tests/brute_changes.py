"""Brute-force enumeration for the 40k Changes tests, written from RULES.md
section 1 and the seed, independently of ``workbench.systems.changes``.

Every die of every attack is enumerated with ``itertools.product`` over the
faces 1..12 and the results are counted as ``fractions.Fraction``.
"""
from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

FACES = range(1, 13)


def passes(face: int, target: int, n12: bool = False, n1: bool = False) -> bool:
    """A D12 test: ``target`` or more succeeds; the variant switches override."""
    if n1 and face == 1:
        return False
    if n12 and face == 12:
        return True
    return face >= target


def shooting_targets(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, weapon="light", action="aimed",
                     go_to_ground=False, firer_gone_to_ground=False, firer_cover=0, shots=None,
                     firer_cover_rule="same", heavy_shot="bs_plus_4"):
    """(to hit, to pierce, to wound) target numbers from RULES.md section 1 (``shots`` is ignored).

    Firer gone to ground: "Any unit it fires at receives the same cover
    modifier this unit currently has" (its cover + the +2 of going to
    ground); the variant "better" keeps the target's own cover if better.
    Heavy weapon in a SHOT: "BALLISTIC SKILL U+4" as BS + 4, or as a flat 4+
    ("flat_4"); cover and invulnerable apply to both."""
    c = cover + (2 if go_to_ground else 0)
    if firer_gone_to_ground:
        c = firer_cover + 2 if firer_cover_rule == "same" else max(c, firer_cover + 2)
    heavy = weapon == "heavy" and action == "shot"
    bs_used = (4 if heavy_shot == "flat_4" else bs + 4) if heavy else bs
    return (bs_used + max(c, inv), ap + sv, s + t)


def per_attack_successes(attacks, n12=False, n1=False) -> dict[tuple[int, ...], Fraction]:
    """Joint distribution of which attacks wound: ``attacks`` is a list of
    (hit, pierce, wound) targets, one per attack; every face of every one of
    the 3 x len(attacks) dice is enumerated."""
    k = len(attacks)
    tables = [[[int(passes(f, tgt, n12, n1)) for f in range(13)] for tgt in a] for a in attacks]
    total = 12 ** (3 * k)
    if k == 2:  # the same enumeration, unrolled for speed (about 3 million face tuples)
        (h0, p0, w0), (h1, p1, w1) = tables
        counts = [0] * 4
        for a, b, c, d, e, f in itertools.product(FACES, repeat=6):
            counts[(h0[a] & p0[b] & w0[c]) | ((h1[d] & p1[e] & w1[f]) << 1)] += 1
        return {(i & 1, i >> 1): Fraction(c, total) for i, c in enumerate(counts) if c}
    counter: Counter = Counter()
    for faces in itertools.product(FACES, repeat=3 * k):
        key = tuple(tables[i][0][faces[3 * i]] & tables[i][1][faces[3 * i + 1]]
                    & tables[i][2][faces[3 * i + 2]] for i in range(k))
        counter[key] += 1
    return {key: Fraction(c, total) for key, c in counter.items()}


def stage_counts(attack, n12=False, n1=False) -> dict[str, Fraction]:
    """Expected hits, pierced and wounds of one attack (every face of its 3 dice)."""
    h = p = w = 0
    for a, b, c in itertools.product(FACES, repeat=3):
        if passes(a, attack[0], n12, n1):
            h += 1
            if passes(b, attack[1], n12, n1):
                p += 1
                if passes(c, attack[2], n12, n1):
                    w += 1
    return {"hits": Fraction(h, 1728), "pierced": Fraction(p, 1728), "unsaved_wounds": Fraction(w, 1728)}


def wound_pmf(joint) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for key, p in joint.items():
        out[sum(key)] = out.get(sum(key), Fraction(0)) + p
    return out


def removed_pmf(wounds: dict[int, Fraction], W: int = 1, models: int | None = None) -> dict[int, Fraction]:
    """models removed = floor(wounds / W), capped at the unit size."""
    out: dict[int, Fraction] = {}
    for w, p in wounds.items():
        r = w // W if models is None else min(models, w // W)
        out[r] = out.get(r, Fraction(0)) + p
    return out


def as_list(pmf: dict[int, Fraction], width: int) -> list[Fraction]:
    assert max(pmf) < width
    return [pmf.get(i, Fraction(0)) for i in range(width)]
