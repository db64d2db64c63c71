"""Brute-force resolution of a rule-file attack, written from the format's text
(RULEFILE.md), independent of workbench.rules.

Every die face is enumerated with itertools and Fractions (a re-rolled die
enumerates its second die too), every token is followed, and every sequence
of damage rolls is applied one success at a time. The stages are plain dicts
whose targets and modifiers the test has already computed as integers:

    dict(die=6, roll="high", target=4, modifier=0, always_fail=(1,), always_succeed=(),
         critical=(6,), on_critical="extra", extra=1, reroll="ones", passes_on="success")

and the removal a dict with models (int or None) and either wounds, damage
(int) or damage_roll (dice, sides, plus), spill, or removed (a function of
the number of successes).
"""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

__all__ = ["brute", "stage", "attack_outcomes"]


def stage(**kw) -> dict:
    out = dict(die=6, roll="high", target=4, modifier=0, always_fail=(), always_succeed=(), critical=(),
               on_critical="none", extra=1, reroll="none", passes_on="success")
    out.update(kw)
    return out


def _result(st: dict, face: int) -> str:
    """'crit', 'success' or 'fail' for one natural face."""
    if face in st["critical"]:
        return "crit"
    if face in st["always_fail"]:
        return "fail"
    if face in st["always_succeed"]:
        return "success"
    score = face + st["modifier"]
    ok = score >= st["target"] if st["roll"] == "high" else score <= st["target"]
    return "success" if ok else "fail"


def _roll(st: dict) -> dict[str, Fraction]:
    """Every face (and every second face of a re-roll) of one die: P(result)."""
    out: dict[str, Fraction] = defaultdict(Fraction)
    d = st["die"]
    for first in range(1, d + 1):
        r = _result(st, first)
        again = (st["reroll"] == "ones" and first == 1) or (st["reroll"] == "failed" and r == "fail")
        if not again:
            out[r] += Fraction(1, d)
            continue
        for second in range(1, d + 1):
            out[_result(st, second)] += Fraction(1, d * d)
    return out


def attack_outcomes(stages: list[dict]) -> dict[tuple, Fraction]:
    """One attack: P((final successes, criticals, tokens passing each stage))."""
    n = len(stages)
    rolls = [_roll(st) for st in stages]
    out: dict[tuple, Fraction] = defaultdict(Fraction)

    def follow(queue: tuple, finals: int, crits: int, passes: tuple, p: Fraction):
        if not queue:
            out[(finals, crits, passes)] += p
            return
        (i, mode), rest = queue[0], queue[1:]
        if i >= n:
            follow(rest, finals + 1, crits, passes, p)
            return
        if mode == "skip":  # passes stage i without a roll
            follow(((i + 1, "roll"),) + rest, finals, crits, _bump(passes, [i]), p)
            return
        st = stages[i]
        for result, q in rolls[i].items():
            if q == 0:
                continue
            if st["passes_on"] == "fail":
                if result == "fail":
                    follow(((i + 1, "roll"),) + rest, finals, crits, _bump(passes, [i]), p * q)
                else:
                    follow(rest, finals, crits, passes, p * q)
                continue
            if result == "fail":
                follow(rest, finals, crits, passes, p * q)
            elif result == "success" or st["on_critical"] == "none":
                follow(((i + 1, "roll"),) + rest, finals, crits + (result == "crit"), _bump(passes, [i]), p * q)
            elif st["on_critical"] == "extra":
                new = ((i + 1, "roll"),) * (1 + st["extra"])
                follow(new + rest, finals, crits + 1, _bump(passes, [i]), p * q)
            elif st["on_critical"] == "skip_next":
                follow(((i + 1, "skip"),) + rest, finals, crits + 1, _bump(passes, [i]), p * q)
            else:  # to_end: passes this stage and every remaining one, a final success
                follow(rest, finals + 1, crits + 1, _bump(passes, range(i, n)), p * q)

    follow(((0, "roll"),), 0, 0, (0,) * n, Fraction(1))
    return dict(out)


def _bump(passes: tuple, idx) -> tuple:
    out = list(passes)
    for i in idx:
        out[i] += 1
    return tuple(out)


def _damage_faces(removal: dict) -> list[tuple[int, Fraction]]:
    if "damage_roll" in removal:
        dice, sides, plus = removal["damage_roll"]
        out: dict[int, Fraction] = defaultdict(Fraction)
        for faces in product(range(1, sides + 1), repeat=dice):
            out[sum(faces) + plus] += Fraction(1, sides ** dice)
        return list(out.items())
    return [(removal.get("damage", 1), Fraction(1))]


def _apply(removal: dict, n: int) -> dict[tuple[int, int], Fraction]:
    """Every damage sequence of n successes: P((models removed, wasted damage))."""
    models, out = removal.get("models"), defaultdict(Fraction)
    if "removed" in removal:
        r = removal["removed"](n)
        out[(r if models is None else min(r, models), 0)] += 1
        return out
    W = removal.get("wounds", 1)
    faces = _damage_faces(removal)
    for seq in product(faces, repeat=n):
        p = Fraction(1)
        for _, q in seq:
            p *= q
        dmg = [d for d, _ in seq]
        if removal.get("spill", False):
            total = sum(dmg)
            removed = total // W
            wasted = 0
            if models is not None:
                removed = min(removed, models)
                wasted = max(total - models * W, 0)
        else:
            removed, left, wasted = 0, W, 0
            for d in dmg:
                if models is not None and removed >= models:
                    wasted += d
                elif d >= left:
                    wasted += d - left
                    removed += 1
                    left = W
                else:
                    left -= d
        out[(removed, wasted)] += p
    return out


def brute(stages: list[dict], count: int, removal: dict) -> tuple[list[Fraction], dict[str, Fraction]]:
    """(P(k models removed) for k = 0.., expected effects) by full enumeration."""
    one = attack_outcomes(stages)
    n = len(stages)
    totals: dict[tuple, Fraction] = defaultdict(Fraction)
    for combo in product(one.items(), repeat=count):
        p = Fraction(1)
        finals = crits = 0
        passes = [0] * n
        for (f, c, ps), q in combo:
            p *= q
            finals += f
            crits += c
            for i in range(n):
                passes[i] += ps[i]
        totals[(finals, crits, tuple(passes))] += p
    pmf: dict[int, Fraction] = defaultdict(Fraction)
    eff = defaultdict(Fraction)
    cache: dict[int, dict] = {}
    for (finals, crits, passes), p in totals.items():
        if finals not in cache:
            cache[finals] = _apply(removal, finals)
        for (removed, wasted), q in cache[finals].items():
            pmf[removed] += p * q
            eff["wasted_damage"] += p * q * wasted
        eff["criticals"] += p * crits
        for i, st in enumerate(stages):
            eff[st["name"] if "name" in st else f"stage{i}"] += p * passes[i]
    width = max(pmf) + 1
    return [pmf.get(k, Fraction(0)) for k in range(width)], dict(eff)


# ---------------------------------------------------------------------------
# the same game written as a rule file (for the tests)
# ---------------------------------------------------------------------------
def _value(x) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str):
        return '"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in x.items()) + " }"
    return str(x)


def to_toml(stages: list[dict], count, removal: dict, *, stats: dict | None = None, die: int = 6,
            key: str = "testgame", forbid: list[dict] | None = None, targets: list | None = None,
            modifiers: list | None = None) -> str:
    """A rule file for ``stages`` (dicts as for :func:`brute`); ``targets`` /
    ``modifiers`` may replace the integer ones by expression strings; ``count``
    and the removal's ``models``/``wounds``/``damage`` may be ints or expression
    strings; ``removal["removed_expr"]`` is the pooled formula's text."""
    lines = ["[system]", f'key = "{key}"', 'name = "Test game"', f"die = {die}", ""]
    for name, spec in (stats or {}).items():
        lines.append(f"[stats.{name}]")
        lines += [f"{k} = {_value(v)}" for k, v in spec.items()]
        lines.append("")
    lines += ["[attack]", f"count = {_value(str(count))}", ""]
    for i, st in enumerate(stages):
        lines.append("[[stages]]")
        lines.append(f"name = {_value(st.get('name', f'stage{i}'))}")
        target = targets[i] if targets and targets[i] is not None else st["target"]
        lines.append(f"target = {_value(str(target))}")
        modifier = modifiers[i] if modifiers and modifiers[i] is not None else st["modifier"]
        if modifier != 0:
            lines.append(f"modifier = {_value(str(modifier))}")
        if st["die"] != die:
            lines.append(f"die = {st['die']}")
        if st["roll"] != "high":
            lines.append(f'roll = "{st["roll"]}"')
        for k in ("always_fail", "always_succeed", "critical"):
            if st[k]:
                lines.append(f"{k} = {_value(list(st[k]))}")
        if st["on_critical"] != "none":
            lines.append(f'on_critical = "{st["on_critical"]}"')
            if st["on_critical"] == "extra":
                lines.append(f"extra = {st['extra']}")
        if st["reroll"] != "none":
            lines.append(f'reroll = "{st["reroll"]}"')
        if st["passes_on"] != "success":
            lines.append(f'passes_on = "{st["passes_on"]}"')
        lines.append("")
    lines.append("[removal]")
    if removal.get("models") is not None:
        lines.append(f"models = {_value(str(removal['models']))}")
    if "removed_expr" in removal:
        lines.append(f"removed = {_value(removal['removed_expr'])}")
    else:
        lines.append(f"wounds = {_value(str(removal.get('wounds', 1)))}")
        if "damage_roll" in removal:
            dice, sides, plus = removal["damage_roll"]
            text = f"{dice if dice > 1 else ''}d{sides}" + (f"{plus:+d}" if plus else "")
            lines.append(f"damage_roll = {_value(text)}")
        else:
            lines.append(f"damage = {_value(str(removal.get('damage', 1)))}")
        lines.append(f"spill = {_value(bool(removal.get('spill', False)))}")
    for f in forbid or []:
        lines += ["", "[[forbid]]", f"when = {_value(f['when'])}", f"message = {_value(f['message'])}"]
    return "\n".join(lines) + "\n"
