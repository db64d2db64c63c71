"""Brute-force enumerations of The Forgotten (seed 002, RULES.md section 2),
written from the rules text, independent of workbench.systems.forgotten.

Every die face is enumerated with itertools.product and counted with
fractions.Fraction. Shots are independent, so the shooting enumeration first
lists every face tuple of one shot (to-hit d10, damage d10 or d6, heroic save
d10) and then takes the product over the shots, replaying each combination in
order as a player would (saves and wounds depend on what came before).
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

MOVED = {"stationary": 1, "cautious": 0, "normal": -1}
RANGE = {"close": 1, "medium": 0, "long": -1}
LEVEL = {"none": 0, "light": 1, "heavy": 2, "soft": 1, "hard": 2}


def v1_need(attack: int, defence: int) -> int:
    """Kill Team table of the seed."""
    if defence >= 2 * attack:
        return 6
    if defence > attack:
        return 5
    if defence == attack:
        return 4
    if attack >= 2 * defence:
        return 2
    return 3


def _hit_modifier(p) -> int:
    m = MOVED[p.get("moved", "cautious")] + RANGE[p.get("range", "medium")]
    m += 1 if p.get("facing_away") else 0
    if p.get("cover") and not p.get("flanked"):
        m -= 2
    m -= 1 if p.get("blind_fire") else 0
    m += 1 if p.get("aimed") == "hit" else 0
    m -= 1 if p.get("firer_wounded") else 0
    m -= 1 if p.get("firer_shocked") else 0
    return m


def _kills(face: int, p) -> bool:
    roll_mod = (1 if p.get("aimed") == "damage" else 0) - bool(p.get("firer_wounded")) - bool(p.get("firer_shocked"))
    if p.get("damage_rule", "v2") == "v1":
        defence = p["defence"] + (1 if p.get("shield") else 0)
        return face + roll_mod >= v1_need(p["damage"], defence)
    # "if the firer is in its rear 180 the cover does not count": no cover level either
    cover_level = 0 if p.get("flanked") else LEVEL[p.get("cover_level", "none")]
    total = face + roll_mod - LEVEL[p.get("armour", "none")] - cover_level
    if p.get("kill_on", "above") == "above":
        return total > p["attack_power"]
    return total >= p["attack_power"]


def one_shot(p) -> Counter:
    """(category, save face) -> number of face tuples of one shot."""
    dmg_die = 6 if p.get("damage_rule", "v2") == "v1" else 10
    heroic = p.get("heroic_save") is not None
    out = Counter()
    for hit_face, dmg_face, save_face in product(range(1, 11), range(1, dmg_die + 1),
                                                 range(1, 11) if heroic else [0]):
        modified = hit_face + _hit_modifier(p)
        if modified >= p["shoot"]:
            cat = "kill" if _kills(dmg_face, p) else "hit"
        elif modified == p["shoot"] - 1:
            cat = "near"
        else:
            cat = "miss"
        out[(cat, save_face if cat == "kill" else 0)] += 1
    return out


def brute_shooting(**p) -> dict:
    shots = p.get("shots", 1)
    per = one_shot(p)
    total_one = sum(per.values())
    keys = list(per)
    pmf = Counter()
    passing: dict[str, Counter] = {"to hit": Counter(), "to kill": Counter(), "heroic save fails": Counter()}
    shock = Fraction(0)
    exp_hits = exp_near = exp_nd = Fraction(0)
    denom = Fraction(1, total_one ** shots)
    for combo in product(keys, repeat=shots):
        weight = denom
        for k in combo:
            weight *= per[k]
        # models already carrying the red token take the kills first
        pre = p.get("target_wounded", 0)
        shocked = 1 if p.get("target_shocked") else 0
        downed, wounded = 0, pre > 0
        hits = nears = kills = 0
        for cat, save_face in combo:
            if cat == "near":
                nears += 1
                continue
            if cat == "miss":
                continue
            hits += 1
            if cat != "kill":
                continue
            kills += 1
            # "A wounded model is -1 to all rolls"; a shocked unit "Has -1 to all rolls"
            if p.get("heroic_save") is not None and \
                    save_face - (1 if wounded else 0) - shocked >= p["heroic_save"]:
                continue  # saved
            if p.get("tough") and not wounded:
                wounded = True
            else:
                downed += 1
                wounded = downed < pre
        non_damaging = hits - downed
        if p.get("shock_rule", "seed") == "seed":
            test = downed > 0 or non_damaging > 0 or nears >= 2
        else:
            test = downed > 0 or non_damaging + nears >= 2
        removed = downed if p.get("models") is None else min(downed, p["models"])
        pmf[removed] += weight
        for name, k in (("to hit", hits), ("to kill", kills), ("heroic save fails", downed)):
            passing[name][k] += weight
        shock += weight if test else 0
        exp_hits += weight * hits
        exp_near += weight * nears
        exp_nd += weight * non_damaging
    width = max(pmf) + 1
    return {"pmf": [pmf.get(k, Fraction(0)) for k in range(width)], "shock": shock, "hits": exp_hits,
            "near_misses": exp_near, "non_damaging_hits": exp_nd,
            # P(k shots pass each stage over the volley); "heroic save fails": the models downed
            # without a unit size (the kills no save stops)
            "stage_pmfs": {name: [c.get(k, Fraction(0)) for k in range(shots + 1)] for name, c in passing.items()}}


def brute_shooting_flat(**p) -> dict:
    """No saves, no tough: every face of every die of every shot in one product."""
    shots = p.get("shots", 1)
    dmg_die = 6 if p.get("damage_rule", "v2") == "v1" else 10
    pmf = Counter()
    shock = 0
    n = 0
    dice = []
    for _ in range(shots):
        dice += [range(1, 11), range(1, dmg_die + 1)]
    for faces in product(*dice):
        n += 1
        kills = nd = nears = 0
        for i in range(shots):
            modified = faces[2 * i] + _hit_modifier(p)
            if modified >= p["shoot"]:
                if _kills(faces[2 * i + 1], p):
                    kills += 1
                else:
                    nd += 1
            elif modified == p["shoot"] - 1:
                nears += 1
        if p.get("shock_rule", "seed") == "seed":
            shock += kills > 0 or nd > 0 or nears >= 2
        else:
            shock += kills > 0 or nd + nears >= 2
        pmf[kills if p.get("models") is None else min(kills, p["models"])] += 1
    return {"pmf": [Fraction(pmf.get(k, 0), n) for k in range(max(pmf) + 1)], "shock": Fraction(shock, n)}


# ---------------------------------------------------------------------------
# close combat
# ---------------------------------------------------------------------------
def _melee_kill(face, mod, p, striker: str) -> bool:
    """Damage roll of ``striker`` ('attacker' or 'defender') against the other."""
    other = "defender" if striker == "attacker" else "attacker"
    if p.get("damage_rule", "v2") == "v1":
        attack = p[f"{striker}_damage"] + p[f"{striker}_strength"]
        return face + mod >= v1_need(attack, p[f"{other}_defence"])
    phys_of = striker if p.get("melee_phys", "attacker") == "attacker" else other
    total = face + p.get(f"{striker}_weapon_bonus", 0) + mod - LEVEL[p.get(f"{other}_armour", "none")]
    if p.get("kill_on", "above") == "above":
        return total > p[f"{phys_of}_phys"]
    return total >= p[f"{phys_of}_phys"]


def _take_hits(n_hits, mod, p, striker, victim, newly_wounded_striker=False):
    """Enumerate damage and save dice for n_hits hits on ``victim``: Fractions
    P(victim downed), P(victim newly wounded and standing)."""
    dmg_die = 6 if p.get("damage_rule", "v2") == "v1" else 10
    save = p.get(f"{victim}_heroic_save")
    tough = p.get(f"{victim}_tough", False)
    pre = p.get(f"{victim}_wounded", False)
    per_hit = list(product(range(1, dmg_die + 1), range(1, 11) if save is not None else [0]))
    down = new = 0
    total = 0
    for combo in product(per_hit, repeat=n_hits):
        total += 1
        downed, wounded = False, pre
        for dmg_face, save_face in combo:
            if downed or not _melee_kill(dmg_face, mod - (1 if newly_wounded_striker else 0), p, striker):
                continue
            # "A wounded model is -1 to all rolls"; a shocked unit "Has -1 to all rolls"
            shocked = 1 if p.get(f"{victim}_shocked") else 0
            if save is not None and save_face - (1 if wounded else 0) - shocked >= save:
                continue
            if tough and not wounded:
                wounded = True
            else:
                downed = True
        down += downed
        new += (not downed) and wounded and not pre
    return Fraction(down, total), Fraction(new, total)


def _cc_setup(p: dict) -> tuple:
    """The dice of one close-combat exchange, read from the seed's modifiers:
    (attack dice, their modifier, block dice modifiers, counter dice modifiers,
    the attacker's and the counter's damage modifiers, both CQC numbers)."""
    dual = p.get("dual_weapons")
    ddual = p.get("defender_dual_weapons")
    att_mod = (1 if p.get("facing_away") else 0) - bool(p.get("outnumbered")) - bool(p.get("power_attack")) \
        - (dual == "hit") - bool(p.get("attacker_wounded")) - bool(p.get("attacker_shocked"))
    n_att = 2 if dual else 1
    d_roll = -bool(p.get("defender_outnumbered")) - bool(p.get("defender_wounded")) \
        - bool(p.get("defender_shocked"))
    d_weapon = d_roll - (ddual == "hit")
    n_dw = 2 if ddual else 1
    if p.get("response", "block") == "block":
        block = [d_weapon] * n_dw + ([d_roll] if p.get("shield") else [])
        counter = []
    else:
        block = [d_roll] if p.get("shield_when_countering") else []
        counter = [d_weapon - bool(p.get("defender_power_attack"))] * n_dw
    a_dmg = 2 * bool(p.get("power_attack")) - (dual == "damage") + bool(p.get("from_rear")) \
        - bool(p.get("attacker_wounded")) - bool(p.get("attacker_shocked"))
    c_dmg = 2 * bool(p.get("defender_power_attack")) - (ddual == "damage") - bool(p.get("defender_wounded")) \
        - bool(p.get("defender_shocked"))
    acqc, dcqc = p["attacker_cqc"], p["defender_cqc"]
    return n_att, att_mod, block, counter, a_dmg, c_dmg, acqc, dcqc


def brute_close_combat(**p) -> dict:
    n_att, att_mod, block, counter, a_dmg, c_dmg, acqc, dcqc = _cc_setup(p)

    memo = {}

    def hits_on_defender(h):
        if ("d", h) not in memo:
            memo[("d", h)] = _take_hits(h, a_dmg, p, "attacker", "defender")
        return memo[("d", h)]

    def hits_on_attacker(c, newly):
        if ("a", c, newly) not in memo:
            memo[("a", c, newly)] = _take_hits(c, c_dmg, p, "defender", "attacker", newly)
        return memo[("a", c, newly)]

    n = len(block) + len(counter)
    total = 0
    d_down = a_down = d_new = a_new = Fraction(0)
    push = Counter()
    for faces in product(range(1, 11), repeat=n_att + n):
        total += 1
        att = [f + att_mod for f in faces[:n_att]]
        blk = [f + m for f, m in zip(faces[n_att:n_att + len(block)], block)]
        cnt = [f + m for f, m in zip(faces[n_att + len(block):], counter)]
        a_ok = [r for r in att if r >= acqc]
        b_ok = [r for r in blk if r >= dcqc]
        c_ok = [r for r in cnt if r >= dcqc]
        h = max(len(a_ok) - len(b_ok), 0)
        if a_ok and (b_ok or c_ok):
            best_a, best_d = max(a_ok), max(b_ok + c_ok)
            push["attacker" if best_a > best_d else "defender" if best_d > best_a else "none"] += 1
        elif a_ok:
            push["attacker"] += 1
        elif b_ok or c_ok:
            push["defender"] += 1
        else:
            push["none"] += 1
        down, new = hits_on_defender(h)
        d_down += down
        d_new += new
        if counter:
            same = 1 - down - new
            c_same = len(c_ok)
            c_wounded = len([r for r in cnt if r - 1 >= dcqc])
            ad, an = hits_on_attacker(c_same, False)
            a_down += same * ad
            a_new += same * an
            ad, an = hits_on_attacker(c_wounded, True)
            a_down += new * ad
            a_new += new * an
    f = Fraction(1, total)
    return {"defender_downed": d_down * f, "attacker_downed": a_down * f, "defender_newly_wounded": d_new * f,
            "attacker_newly_wounded": a_new * f, "pushback_attacker": Fraction(push["attacker"], total),
            "pushback_defender": Fraction(push["defender"], total), "pushback_none": Fraction(push["none"], total)}


def brute_close_combat_joint(**p) -> dict:
    """One round: {(defender, attacker): P} with each "down", "wounded"
    (newly, standing) or "same", every face of every die enumerated."""
    n_att, att_mod, block, counter, a_dmg, c_dmg, acqc, dcqc = _cc_setup(p)
    joint = Counter()
    total = 0
    for faces in product(range(1, 11), repeat=n_att + len(block) + len(counter)):
        total += 1
        att = [f + att_mod for f in faces[:n_att]]
        blk = [f + m for f, m in zip(faces[n_att:n_att + len(block)], block)]
        cnt = [f + m for f, m in zip(faces[n_att + len(block):], counter)]
        h = max(len([r for r in att if r >= acqc]) - len([r for r in blk if r >= dcqc]), 0)
        down, new = _take_hits(h, a_dmg, p, "attacker", "defender")
        joint[("down", "same")] += down
        for d_state, prob, n_hits, newly in (("same", 1 - down - new, len([r for r in cnt if r >= dcqc]), False),
                                             ("wounded", new, len([r for r in cnt if r - 1 >= dcqc]), True)):
            if not counter:
                joint[(d_state, "same")] += prob
                continue
            ad, an = _take_hits(n_hits, c_dmg, p, "defender", "attacker", newly)
            joint[(d_state, "down")] += prob * ad
            joint[(d_state, "wounded")] += prob * an
            joint[(d_state, "same")] += prob * (1 - ad - an)
    return {k: Fraction(v) / total for k, v in joint.items() if v}


def brute_rounds(rounds: int, **p) -> dict:
    """Up to ``rounds`` rounds, each :func:`brute_close_combat_joint` with the
    fighters' states so far (a model wounded in a round fights on at -1)."""
    state = {(bool(p.get("attacker_wounded")), bool(p.get("defender_wounded"))): Fraction(1)}
    out = Counter()
    memo = {}
    for _ in range(rounds):
        nxt = Counter()
        for (aw, dw), ps in state.items():
            if (aw, dw) not in memo:
                memo[(aw, dw)] = brute_close_combat_joint(**dict(p, attacker_wounded=aw, defender_wounded=dw))
            joint = memo[(aw, dw)]
            out["rounds_fought"] += ps
            for (d, a), q in joint.items():
                aw2, dw2 = aw or a == "wounded", dw or d == "wounded"
                if d == "down":
                    out["defender_downed"] += ps * q
                    out["attacker_newly_wounded"] += ps * q * (aw2 and not p.get("attacker_wounded"))
                elif a == "down":
                    out["attacker_downed"] += ps * q
                    out["defender_newly_wounded"] += ps * q * (dw2 and not p.get("defender_wounded"))
                else:
                    nxt[(aw2, dw2)] += ps * q
        state = nxt
    for (aw, dw), ps in state.items():
        out["attacker_newly_wounded"] += ps * (aw and not p.get("attacker_wounded"))
        out["defender_newly_wounded"] += ps * (dw and not p.get("defender_wounded"))
    return {k: Fraction(v) for k, v in out.items()}


# ---------------------------------------------------------------------------
# close combat, stage by stage: how many of the attacker's dice pass each step
# ---------------------------------------------------------------------------
def _take_hits_counted(n_hits, mod, p, striker, victim) -> Counter:
    """Every damage and save face of ``n_hits`` hits on ``victim``, one after the other:
    {(kills landed on the standing victim, kills not saved, end): P}, end "down",
    "wounded" (newly, standing) or "same"."""
    dmg_die = 6 if p.get("damage_rule", "v2") == "v1" else 10
    save = p.get(f"{victim}_heroic_save")
    tough = p.get(f"{victim}_tough", False)
    pre = p.get(f"{victim}_wounded", False)
    shocked = 1 if p.get(f"{victim}_shocked") else 0
    per_hit = list(product(range(1, dmg_die + 1), range(1, 11) if save is not None else [0]))
    out = Counter()
    combos = list(product(per_hit, repeat=n_hits))
    for combo in combos:
        downed, wounded, kills, unsaved = False, pre, 0, 0
        for dmg_face, save_face in combo:
            if downed or not _melee_kill(dmg_face, mod, p, striker):
                continue
            kills += 1
            if save is not None and save_face - (1 if wounded else 0) - shocked >= save:
                continue
            unsaved += 1
            if tough and not wounded:
                wounded = True
            else:
                downed = True
        end = "down" if downed else "wounded" if wounded and not pre else "same"
        out[(kills, unsaved, end)] += Fraction(1, len(combos))
    return out


def brute_round_passes(**p) -> Counter:
    """One round, every face of every die: {(hits, unblocked, kills, unsaved, downed),
    defender end, attacker end): P}, the ends "down", "wounded" (newly) or "same"."""
    n_att, att_mod, block, counter, a_dmg, c_dmg, acqc, dcqc = _cc_setup(p)
    out = Counter()
    n = n_att + len(block) + len(counter)
    memo = {}
    for faces in product(range(1, 11), repeat=n):
        att = [f + att_mod for f in faces[:n_att]]
        blk = [f + m for f, m in zip(faces[n_att:n_att + len(block)], block)]
        cnt = [f + m for f, m in zip(faces[n_att + len(block):], counter)]
        hits = len([r for r in att if r >= acqc])
        h = max(hits - len([r for r in blk if r >= dcqc]), 0)
        if h not in memo:
            memo[h] = _take_hits_counted(h, a_dmg, p, "attacker", "defender")
        for (kills, unsaved, d_end), q in memo[h].items():
            steps = (hits, h, kills, unsaved, int(d_end == "down"))
            w = q / 10 ** n
            if d_end == "down" or not counter:
                out[(steps, d_end, "same")] += w
                continue
            newly = d_end == "wounded"
            c_hits = len([r for r in cnt if r - newly >= dcqc])
            if (c_hits, newly) not in memo:
                memo[(c_hits, newly)] = _take_hits(c_hits, c_dmg, p, "defender", "attacker", newly)
            ad, an = memo[(c_hits, newly)]
            out[(steps, d_end, "down")] += w * ad
            out[(steps, d_end, "wounded")] += w * an
            out[(steps, d_end, "same")] += w * (1 - ad - an)
    return Counter({k: v for k, v in out.items() if v})


def brute_fight_passes(rounds: int, **p) -> dict:
    """Up to ``rounds`` rounds of :func:`brute_round_passes` at the fighters' states so far:
    P(the attacker's dice pass each step k times over the whole fight), step -> [P(0), P(1), ...]."""
    steps = ("hits", "unblocked", "kills", "unsaved", "downed")
    going = Counter({(bool(p.get("attacker_wounded")), bool(p.get("defender_wounded")), (0,) * 5): Fraction(1)})
    over = Counter()
    memo = {}
    for _ in range(rounds):
        nxt = Counter()
        for (aw, dw, counts), ps in going.items():
            if (aw, dw) not in memo:
                memo[(aw, dw)] = brute_round_passes(**dict(p, attacker_wounded=aw, defender_wounded=dw))
            for (inc, d_end, a_end), q in memo[(aw, dw)].items():
                total = tuple(x + y for x, y in zip(counts, inc))
                if d_end == "down" or a_end == "down":
                    over[total] += ps * q
                else:
                    nxt[(aw or a_end == "wounded", dw or d_end == "wounded", total)] += ps * q
        going = nxt
    for (_aw, _dw, counts), ps in going.items():
        over[counts] += ps
    out = {}
    for i, name in enumerate(steps):
        dist = Counter()
        for counts, q in over.items():
            dist[counts[i]] += q
        out[name] = [dist.get(k, Fraction(0)) for k in range(max(dist) + 1)]
    return out
