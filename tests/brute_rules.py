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

The wider format's keys, with their values already computed: ``long_shot``
(a face that cannot pass needs the best face twice), ``critical_on`` (the
``critical`` faces are criticals here), ``special_on`` (``on_critical``
applies here), ``tally`` / ``critical_tally`` (names of counts); ``brute``
takes ``tokens_die`` (each attack is 1..N tokens) and ``chances`` (name,
predicate of the counts dict).
"""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

__all__ = ["brute", "stage", "attack_outcomes", "stage_pmfs"]


def stage(**kw) -> dict:
    out = dict(die=6, roll="high", target=4, modifier=0, always_fail=(), always_succeed=(), critical=(),
               on_critical="none", extra=1, reroll="none", passes_on="success", long_shot=False,
               critical_on=True, special_on=True, tally="", critical_tally="")
    out.update(kw)
    return out


def _result(st: dict, face: int) -> str:
    """'crit', 'success', 'fail' or 'long' (needs the best face again) for one natural face."""
    if face in st["critical"] and st.get("critical_on", True):
        return "crit"
    if face in st["always_fail"]:
        return "fail"
    if face in st["always_succeed"]:
        return "success"
    score = face + st["modifier"]
    ok = score >= st["target"] if st["roll"] == "high" else score <= st["target"]
    if st.get("long_shot") and not ok:
        best = st["die"] if st["roll"] == "high" else 1
        reach = [f for f in range(1, st["die"] + 1)
                 if (f + st["modifier"] >= st["target"] if st["roll"] == "high" else f + st["modifier"] <= st["target"])]
        if not reach and face == best:
            return "long"
    return "success" if ok else "fail"


def _roll(st: dict) -> dict[str, Fraction]:
    """Every face of every die a player may roll for one test (a long shot's
    second die, a re-roll and its own second die), read in order: P(result)."""
    out: dict[str, Fraction] = defaultdict(Fraction)
    d = st["die"]
    best = d if st["roll"] == "high" else 1
    per_test = 2 if st.get("long_shot") else 1
    n_dice = per_test * (2 if st["reroll"] != "none" else 1)

    def test(faces):
        r = _result(st, faces[0])
        if r == "long":
            r = "success" if faces[1] == best else "fail"
        elif r == "fail" and st.get("near_miss_tally"):
            short = st["target"] - 1 if st["roll"] == "high" else st["target"] + 1
            if faces[0] + st["modifier"] == short:
                r = "near"  # a failure one short of the target, counted
        return r

    for faces in product(range(1, d + 1), repeat=n_dice):
        r = test(faces)
        again = (st["reroll"] == "ones" and faces[0] == 1) or (st["reroll"] == "failed" and r in ("fail", "near"))
        if again:
            r = test(faces[per_test:])
        out[r] += Fraction(1, d ** n_dice)
    return out


def attack_outcomes(stages: list[dict]) -> dict[tuple, Fraction]:
    """One token: P((final successes, critical rolls per stage, tokens passing each stage,
    near misses per stage))."""
    n = len(stages)
    rolls = [_roll(st) for st in stages]
    out: dict[tuple, Fraction] = defaultdict(Fraction)

    def follow(queue: tuple, finals: int, crits: tuple, passes: tuple, p: Fraction, nears: tuple = (0,) * n):
        if not queue:
            out[(finals, crits, passes, nears)] += p
            return
        (i, mode), rest = queue[0], queue[1:]
        if i >= n:
            follow(rest, finals + 1, crits, passes, p, nears)
            return
        if mode == "skip":  # passes stage i without a roll
            follow(((i + 1, "roll"),) + rest, finals, crits, _bump(passes, [i]), p, nears)
            return
        st = stages[i]
        for result, q in rolls[i].items():
            if q == 0:
                continue
            if result == "near":
                follow(rest, finals, crits, passes, p * q, _bump(nears, [i]))
                continue
            if st["passes_on"] == "fail":
                if result == "fail":
                    follow(((i + 1, "roll"),) + rest, finals, crits, _bump(passes, [i]), p * q, nears)
                else:
                    follow(rest, finals, crits, passes, p * q, nears)
                continue
            c = _bump(crits, [i]) if result == "crit" else crits
            if result == "fail":
                follow(rest, finals, crits, passes, p * q, nears)
            elif result == "success" or st["on_critical"] == "none" or not st.get("special_on", True):
                follow(((i + 1, "roll"),) + rest, finals, c, _bump(passes, [i]), p * q, nears)
            elif st["on_critical"] == "extra":
                new = ((i + 1, "roll"),) * (1 + st["extra"])
                follow(new + rest, finals, c, _bump(passes, [i]), p * q, nears)
            elif st["on_critical"] == "skip_next":
                follow(((i + 1, "skip"),) + rest, finals, c, _bump(passes, [i]), p * q, nears)
            else:  # to_end: passes this stage and every remaining one, a final success
                follow(rest, finals + 1, c, _bump(passes, range(i, n)), p * q, nears)

    follow(((0, "roll"),), 0, (0,) * n, (0,) * n, Fraction(1))
    return dict(out)


def stage_pmfs(stages: list[dict], count: int) -> list[dict[int, Fraction]]:
    """For each stage, P(k tokens pass it over ``count`` attacks) as {k: Fraction}: every
    combination of the attacks' own outcomes (:func:`attack_outcomes`)."""
    one = attack_outcomes(stages)
    want: list[dict[int, Fraction]] = [defaultdict(Fraction) for _ in stages]
    for combo in product(one.items(), repeat=count):
        p = Fraction(1)
        for _key, q in combo:
            p *= q
        for i in range(len(stages)):
            want[i][sum(key[2][i] for key, _q in combo)] += p
    return [dict(w) for w in want]


def _bump(passes: tuple, idx) -> tuple:
    out = list(passes)
    for i in idx:
        out[i] += 1
    return tuple(out)


def _combine(parts: list[tuple[tuple, Fraction]]) -> tuple[tuple, Fraction]:
    """The sum of several tokens' (finals, crits, passes, nears) and the product of their probabilities."""
    p = Fraction(1)
    total = None
    for key, q in parts:
        p *= q
        total = key if total is None else (total[0] + key[0],) + tuple(
            tuple(a + b for a, b in zip(x, y)) for x, y in zip(total[1:], key[1:]))
    return total, p


def _repeat(one: dict, n: int, width: int) -> dict[tuple, Fraction]:
    """Every combination of ``n`` independent draws of ``one``."""
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    if n == 0:
        out[(0, (0,) * width, (0,) * width, (0,) * width)] = Fraction(1)
        return out
    for combo in product(one.items(), repeat=n):
        key, p = _combine(list(combo))
        out[key] += p
    return out


def _damage_faces(removal: dict) -> list[tuple[int, Fraction]]:
    if "damage_roll" in removal:
        dice, sides, plus = removal["damage_roll"]
        out: dict[int, Fraction] = defaultdict(Fraction)
        for faces in product(range(1, sides + 1), repeat=dice):
            out[sum(faces) + plus] += Fraction(1, sides ** dice)
        return list(out.items())
    return [(removal.get("damage", 1), Fraction(1))]


BY_MODEL = ("save", "tough", "already_wounded")


def _model_by_model(removal: dict, n: int) -> dict[tuple[int, int], Fraction]:
    """n blows, each to the model in front, every save die's faces enumerated: P((models removed,
    blows wasted on a destroyed unit)). The unit is a row of models, the ``already_wounded`` ones
    first; a blow to the front model is saved on a d``save_die`` at or above ``save(wounded)``;
    an unsaved one wounds a fresh tough model (it stays in front) and otherwise removes it."""
    models, out = removal.get("models"), defaultdict(Fraction)
    k0, tough, save = removal.get("already_wounded", 0), removal.get("tough", False), removal.get("save")
    sides = removal.get("save_die", 6)
    seqs = product(range(1, sides + 1), repeat=n) if save is not None else [(0,) * n]
    p = Fraction(1, sides ** n) if save is not None else Fraction(1)
    for faces in seqs:
        size = models if models is not None else n + k0
        wounded = [i < k0 for i in range(size)]
        front, wasted = 0, 0
        for face in faces:
            if front >= size:
                wasted += 1
                continue
            if save is not None and face >= save(int(wounded[front])):
                continue
            if tough and not wounded[front]:
                wounded[front] = True
            else:
                front += 1
        out[(front, wasted)] += p
    return out


def _apply(removal: dict, n: int) -> dict[tuple[int, int], Fraction]:
    """Every damage sequence of n successes: P((models removed, wasted damage))."""
    models, out = removal.get("models"), defaultdict(Fraction)
    if any(k in removal for k in BY_MODEL):
        return _model_by_model(removal, n)
    if "removed" in removal:
        r = removal["removed"](n)
        out[(r if models is None else min(r, models), 0)] += 1
        return out
    return apply_faces(removal, [_damage_faces(removal)] * n)


def apply_faces(removal: dict, faces: list) -> dict[tuple[int, int], Fraction]:
    """Every damage sequence of successes whose damage faces are ``faces[j]`` for success j (pairs of
    damage and probability), applied one at a time or added up (spill): P((models removed, wasted damage))."""
    models, out = removal.get("models"), defaultdict(Fraction)
    W = removal.get("wounds", 1)
    for seq in product(*faces):
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


def brute(stages: list[dict], count: int, removal: dict, tokens_die: int = 1,
          chances: list | None = None) -> tuple[list[Fraction], dict[str, Fraction]]:
    """(P(k models removed) for k = 0.., expected effects) by full enumeration.

    ``chances``: (name, predicate of the dict of counts: every tally name,
    ``successes`` and ``removed``) pairs, reported as P(predicate)."""
    n = len(stages)
    token = attack_outcomes(stages)
    attack: dict[tuple, Fraction] = defaultdict(Fraction)
    for j in range(1, tokens_die + 1):  # 1..N tokens, equally likely
        for key, p in _repeat(token, j, n).items():
            attack[key] += p / tokens_die
    totals = _repeat(dict(attack), count, n)
    pmf: dict[int, Fraction] = defaultdict(Fraction)
    eff = defaultdict(Fraction)
    cache: dict[int, dict] = {}
    for (finals, crits, passes, nears), p in totals.items():
        if finals not in cache:
            cache[finals] = _apply(removal, finals)
        counts = {"successes": finals}
        for i, st in enumerate(stages):
            if st.get("tally"):
                counts[st["tally"]] = passes[i]
            if st.get("critical_tally"):
                counts[st["critical_tally"]] = crits[i]
            if st.get("near_miss_tally"):
                counts[st["near_miss_tally"]] = nears[i]
        for (removed, wasted), q in cache[finals].items():
            pmf[removed] += p * q
            eff["wasted_damage"] += p * q * wasted
            for name, pred in chances or ():
                eff[name] += p * q * bool(pred(dict(counts, removed=removed)))
        eff["criticals"] += p * sum(crits)
        for i, st in enumerate(stages):
            eff[st["name"] if "name" in st else f"stage{i}"] += p * passes[i]
            if st.get("tally"):
                eff[st["tally"]] += p * passes[i]
            if st.get("critical_tally"):
                eff[st["critical_tally"]] += p * crits[i]
            if st.get("near_miss_tally"):
                eff[st["near_miss_tally"]] += p * nears[i]
    for name, _ in chances or ():
        eff.setdefault(name, Fraction(0))
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
            modifiers: list | None = None, tokens_die=None, chances: list | None = None,
            stage_extra: list | None = None) -> str:
    """A rule file for ``stages`` (dicts as for :func:`brute`); ``targets`` /
    ``modifiers`` may replace the integer ones by expression strings; ``count``
    and the removal's ``models``/``wounds``/``damage`` may be ints or expression
    strings; ``removal["removed_expr"]`` is the pooled formula's text;
    ``tokens_die`` an int or expression, ``chances`` dicts of name and when,
    ``stage_extra[i]`` more keys for stage i (e.g. ``critical_when``)."""
    lines = ["[system]", f'key = "{key}"', 'name = "Test game"', f"die = {die}", ""]
    for name, spec in (stats or {}).items():
        lines.append(f"[stats.{name}]")
        lines += [f"{k} = {_value(v)}" for k, v in spec.items()]
        lines.append("")
    lines += ["[attack]", f"count = {_value(str(count))}"]
    if tokens_die is not None:
        lines.append(f"tokens_die = {_value(str(tokens_die))}")
    lines.append("")
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
        if st.get("long_shot"):
            lines.append("long_shot = true")
        for k in ("tally", "critical_tally", "near_miss_tally"):
            if st.get(k):
                lines.append(f"{k} = {_value(st[k])}")
        for k, v in ((stage_extra or [None] * len(stages))[i] or {}).items():
            lines.append(f"{k} = {_value(v)}")
        lines.append("")
    lines.append("[removal]")
    if removal.get("models") is not None:
        lines.append(f"models = {_value(str(removal['models']))}")
    if "removed_expr" in removal:
        lines.append(f"removed = {_value(removal['removed_expr'])}")
    elif any(k in removal for k in BY_MODEL):
        if "save" in removal:
            lines.append(f"save = {_value(removal['save_expr'])}")
            lines.append(f"save_die = {removal.get('save_die', 6)}")
        if "tough" in removal:
            lines.append(f"tough = {_value(removal.get('tough_expr', str(int(removal['tough']))))}")
        if "already_wounded" in removal:
            lines.append(f"already_wounded = {_value(removal.get('wounded_expr', str(removal['already_wounded'])))}")
    else:
        lines.append(f"wounds = {_value(str(removal.get('wounds', 1)))}")
        if "damage_roll" in removal:
            dice, sides, plus = removal["damage_roll"]
            text = f"{dice if dice > 1 else ''}d{sides}" + (f"{plus:+d}" if plus else "")
            lines.append(f"damage_roll = {_value(text)}")
        else:
            lines.append(f"damage = {_value(str(removal.get('damage', 1)))}")
        lines.append(f"spill = {_value(bool(removal.get('spill', False)))}")
    for c in chances or []:
        lines += ["", "[[chances]]"] + [f"{k} = {_value(v)}" for k, v in c.items()]
    for f in forbid or []:
        lines += ["", "[[forbid]]", f"when = {_value(f['when'])}", f"message = {_value(f['message'])}"]
    return "\n".join(lines) + "\n"
