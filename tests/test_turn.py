"""The Changes turn simulator against the exact resolver and the seed's rules."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from workbench.errors import InputError
from workbench.systems import changes
from workbench.turn import (Battle, Rules, UnitSpec, Weapon, force, from_profile, get_policy,
                            play_igougo, play_turn, shot_of, study, summary, target_count)
from workbench.turn.state import EVADING, FIGHTING, GONE_TO_GROUND, OCCUPIED, UNDER_FIRE

BOLTER = Weapon("Boltgun", s=5, ap=5, shots=1, kind="light")
HEAVY = Weapon("Heavy Bolter", s=4, ap=4, shots=3, kind="heavy")
KNIFE = Weapon("Knife", s=5, ap=8, kind="melee")
#: a weapon and a stat line that pass every D12 test (targets of 1 or less)
SURE = Weapon("Sure", s=1, ap=1, shots=1, kind="light")
SURE_BLADE = Weapon("Sure blade", s=1, ap=1, kind="melee")


def marine(name, models=5, **kw):
    return UnitSpec(name=name, models=models, weapons=kw.pop("weapons", (BOLTER, KNIFE)), **kw)


def brute(name, models=3, **kw):
    """Certain hits, pierces and wounds against a T/Sv/D of -12 target."""
    kw.setdefault("weapons", (SURE, SURE_BLADE))
    return UnitSpec(name=name, models=models, ws=1, bs=1, s=1, **kw)


def soft(name, models=3, **kw):
    return UnitSpec(name=name, models=models, t=-12, sv=-12, d=-12, weapons=kw.pop("weapons", ()), **kw)


def per_shot(bs, s, ap, t, sv, inv=0, cover=0):
    """Brute force over the three D12 faces of one shot (an independent count)."""
    ok = sum(1 for h in range(1, 13) for p in range(1, 13) for w in range(1, 13)
             if h >= bs + max(cover, inv) and p >= ap + sv and w >= s + t)
    return Fraction(ok, 12 ** 3)


# -- actions and their shots ----------------------------------------------------
@pytest.mark.parametrize("action, shot", [
    ("move", "shot"), ("disembark", "shot"), ("tactical_charge", "snap"), ("hold_ground", "aimed"),
    ("go_to_ground", "snap"), ("furious_charge", None), ("desperate_charge", None), ("move_9_d3", None),
    ("embark", None), ("block", None), ("get_up", None), ("postpone", None), ("evade", None)])
def test_each_action_allows_the_shot_of_its_bullets(action, shot):
    assert shot_of(action) == shot


def test_a_shot_fires_heavy_weapons_at_bs_plus_4_and_a_snap_shot_light_ones_only():
    b = Battle([marine("A1", weapons=(BOLTER, HEAVY))], [marine("B1")])
    a1, b1 = b.unit("A", "A1"), b.unit("B", "B1")
    for shot, bs in (("shot", 5 + 4), ("aimed", 5)):
        tests = b.gun_tests(a1, HEAVY, shot, b1)
        assert math.prod(t.success for t in tests) == per_shot(bs, 4, 4, 2, 3)
    assert b.weapons_for(a1, "snap") == [BOLTER]
    assert b.weapons_for(a1, "shot") == [BOLTER, HEAVY]


def test_unknown_action_is_refused():
    with pytest.raises(InputError, match="action"):
        shot_of("charge")


# -- one phase against the exact volley -------------------------------------------
ATTACKERS = [marine("A1", models=5), marine("A2", models=4, weapons=(HEAVY,)), marine("A3", models=6)]
TARGET = marine("B1", models=6, cover=1)


def _exact_volley():
    entries = [dict(bs=5, s=5, ap=5, shots=5), dict(bs=5, s=4, ap=4, shots=12, weapon="heavy"),
               dict(bs=5, s=5, ap=5, shots=6)]
    return changes.volley(entries, t=2, sv=3, cover=1, models=6)


@pytest.mark.parametrize("response", ["under_fire", "engage"])
def test_one_phase_casualties_match_the_exact_volley(response):
    n = 2000
    df = study(ATTACKERS, [TARGET], policy_a="focus", policy_b=("focus", {"response": response}),
               turns=n, seed=11, progress=False)
    assert (df["phases"] == 1).all() and (df["declared_units"] == 3).all()
    exact = np.asarray(_exact_volley().pmf)
    freq = np.bincount(df["lost_B"], minlength=exact.size)[:exact.size] / n
    se = np.sqrt(exact * (1 - exact) / n) + 1e-12
    assert np.all(np.abs(freq - exact) <= 5 * se + 1.0 / n)
    mean = float(exact @ np.arange(exact.size))
    assert abs(df["lost_B"].mean() - mean) < 5 * df["lost_B"].std(ddof=1) / math.sqrt(n)


def test_an_engaged_target_fires_back_at_full_strength():
    """Step 8 removes casualties after the passive unit's reply, so its whole unit shoots."""
    n = 1500
    df = study(ATTACKERS, [TARGET], policy_a="focus", policy_b=("focus", {"response": "engage"}),
               turns=n, seed=5, progress=False)
    # B1 answers the attacker it hurts most: all three have T +2, Sv +3, cover 0, so the first
    # most threatening (most dice: A2 with 12) takes 6 boltgun shots
    exact = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=6, models=4)
    mean = float(np.asarray(exact.pmf) @ np.arange(len(exact.pmf)))
    got = df["return_fire_lost"]
    assert abs(got.mean() - mean) < 5 * got.std(ddof=1) / math.sqrt(n)


def test_shots_are_wasted_as_often_as_the_first_unit_destroys_the_target():
    first = brute("A1", models=2, weapons=(Weapon("g", s=5, ap=5, shots=1),))
    second = marine("A2", models=3)
    target = marine("B1", models=1)
    n = 2000
    df = study([first, second], [target], policy_a="focus", policy_b=("focus", {"response": "under_fire"}),
               turns=n, seed=2, progress=False)
    # focus declares the units in the force's order; A2 is wasted when A1's two shots kill alone
    p = 1 - (1 - per_shot(1, 5, 5, 2, 3)) ** 2
    got = df["units_wasted"]
    assert abs(got.mean() - float(p)) < 5 * math.sqrt(float(p * (1 - p)) / n)
    assert (df.loc[df["units_wasted"] == 1, "shots_wasted"] == 3).all()


# -- targets ---------------------------------------------------------------------
def test_a_loaded_transport_counts_as_two_targets():
    rhino = UnitSpec("Rhino", models=1, carries=1, weapons=(BOLTER,))
    assert target_count([rhino]) == 2 and target_count([marine("x"), marine("y")]) == 2
    b = Battle([marine("A1"), marine("A2")], [rhino, marine("B2")])
    a1, a2 = b.unit("A", "A1"), b.unit("A", "A2")
    r, b2 = b.unit("B", "Rhino"), b.unit("B", "B2")
    assert len(b.check_plan([(r, [a1])], "A", "B")) == 1
    with pytest.raises(InputError, match="counts as 3 units"):
        b.check_plan([(r, [a1]), (b2, [a2])], "A", "B")


def test_only_ready_evading_or_fighting_units_can_be_targeted():
    b = Battle([marine("A1")], [marine("B1"), marine("B2")])
    b.unit("B", "B1").state = UNDER_FIRE
    b.unit("B", "B2").state = OCCUPIED
    with pytest.raises(InputError, match="READY, EVADING or FIGHTING"):
        b.check_plan([(b.unit("B", "B1"), [b.unit("A", "A1")])], "A", "B")


def test_fighting_units_cannot_be_shot_at():
    b = Battle([marine("A1"), marine("A2")], [marine("B1"), marine("B2")])
    b.lock("A1", "B1")
    with pytest.raises(InputError, match="FIGHTING cannot be shot at"):
        b.fire(np.random.default_rng(0), b.unit("A", "A2"), b.unit("B", "B1"), "aimed")
    # a whole turn: no policy ever shoots a FIGHTING unit, so B1 loses models only in fights
    for seed in range(20):
        bt = Battle([marine("A1", a=0), marine("A2", models=10)], [marine("B1", a=0), marine("B2")], log=True)
        bt.lock("A1", "B1")
        t = bt.turn("A", {"A": get_policy("focus"), "B": get_policy("focus")}, np.random.default_rng(seed))
        assert not any("at B:B1" in e and ("aimed" in e or "snap" in e) for e in t.events)
        assert not any("at A:A1" in e and ("aimed" in e or "snap" in e) for e in t.events)



def test_a_unit_gone_to_ground_is_never_declared_at_a_fighting_unit():
    # only a Tactical Charge reaches a FIGHTING unit, and a unit gone to ground "cannot move in any
    # way": a charging policy leaves it out of an attack on one rather than have it shoot there
    for seed in range(20):
        bt = Battle([marine("A1", a=0), marine("A2", gone_to_ground=True)], [marine("B1", a=0)], log=True)
        bt.lock("A1", "B1")
        pol = get_policy(("focus", {"charge": True}))
        t = bt.turn("A", {"A": pol, "B": pol}, np.random.default_rng(seed))
        assert not any(e.startswith("A:A2") and "at B:B1" in e for e in t.events)
        assert bt.unit("A", "A2").gone_to_ground


# -- fights ------------------------------------------------------------------------
def test_early_combat_winner_that_killed_all_opponents_becomes_evading():
    b = Battle([brute("A1"), marine("A2")], [soft("B1"), marine("B2", a=0), marine("B3", a=0)])
    b.lock("A1", "B1")
    b.lock("A2", "B2")
    b.early_combats(np.random.default_rng(0))
    assert b.unit("B", "B1").models == 0
    assert b.unit("A", "A1").status == EVADING  # "kill all their opponents: EVADING marker"
    # A2 (one knife attack per model) against B2 (5 models, no attacks) cannot kill all five
    assert b.unit("A", "A2").status == FIGHTING and b.unit("B", "B2").status == FIGHTING


def test_evading_units_can_only_be_fired_at_with_snap_shots():
    b = Battle([marine("A1", weapons=(HEAVY,))], [marine("B1")], rules=Rules(snap_at_evading="refuse"))
    b.unit("B", "B1").place(EVADING)
    with pytest.raises(InputError, match="SNAP SHOTS"):
        b.fire(np.random.default_rng(0), b.unit("A", "A1"), b.unit("B", "B1"), "aimed")
    b2 = Battle([marine("A1", weapons=(HEAVY,))], [marine("B1")])
    b2.unit("B", "B1").place(EVADING)
    dice, _ = b2.fire(np.random.default_rng(0), b2.unit("A", "A1"), b2.unit("B", "B1"), "aimed")
    assert dice == 0  # downgraded to a snap shot: heavy weapons do not fire


@pytest.mark.parametrize("i_a, i_b, a_left, b_left", [(9, 1, 3, 0), (1, 9, 0, 3), (5, 5, 0, 0)])
def test_fights_strike_in_initiative_order(i_a, i_b, a_left, b_left):
    b = Battle([brute("A1", i=i_a, t=-12, sv=-12, d=-12)], [brute("B1", i=i_b, t=-12, sv=-12, d=-12)])
    b.lock("A1", "B1")
    b.fight(np.random.default_rng(0), [b.unit("A", "A1"), b.unit("B", "B1")])
    assert (b.unit("A", "A1").models, b.unit("B", "B1").models) == (a_left, b_left)


def test_units_locked_together_fight_in_the_order_of_their_names_the_same_in_every_run():
    b = Battle([marine("A1")], [marine(n) for n in ("B3", "B1", "B2")])
    for n in ("B2", "B3", "B1"):
        b.lock("A1", n)
    assert [u.name for u in b.engaged_with(b.unit("A", "A1"))] == ["B1", "B2", "B3"]
    a = [marine("A1"), marine("A2"), marine("A3")]
    rows = [study(a, [marine("B1", models=10)], policy_a=("focus", {"charge": True}), game_turns=2, turns=40,
                  seed=5, progress=False)[["lost_A", "lost_B"]].to_numpy().tolist() for _ in range(3)]
    assert rows[0] == rows[1] == rows[2]


@pytest.mark.parametrize("ld, broke", [(13, 1), (1, 0)])
def test_the_loser_takes_a_morale_test_and_breaks_off_if_it_fails(ld, broke):
    b = Battle([brute("A1")], [soft("B1", models=10, a=0, ld=ld)])
    b.lock("A1", "B1")
    b.late_combats(np.random.default_rng(0))
    assert b.unit("B", "B1").models == 7
    assert b.tally.morale_tests == 1 and b.tally.broke_off == broke
    assert bool(b.unit("B", "B1").locked) == (not broke)
    assert b.unit("B", "B1").status == ("FIGHTING" if not broke else "READY")


@pytest.mark.parametrize("morale, modifier", [("plain", 0), ("difference", 3)])
def test_morale_failures_follow_the_leadership_test(morale, modifier):
    """Ld 7+; with morale="difference" the 3 wounds the loser suffered more are added."""
    n, fails = 600, 0
    for seed in range(n):
        b = Battle([brute("A1")], [soft("B1", models=10, a=0, ld=7)], rules={"morale": morale})
        b.lock("A1", "B1")
        b.late_combats(np.random.default_rng(seed))
        fails += b.tally.broke_off
    p = 1 - float(changes.leadership(7, modifier).pmf[1])
    assert abs(fails / n - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_a_fight_removes_the_go_to_ground_marker():
    b = Battle([marine("A1", a=0)], [marine("B1", a=0, gone_to_ground=True)])
    b.lock("A1", "B1")
    assert b.unit("B", "B1").gone_to_ground is False  # the FIGHTING marker replaced it
    b2 = Battle([marine("A1", a=0)], [marine("B1", a=0, gone_to_ground=True)])
    u = b2.unit("B", "B1")
    u.locked.add(b2.unit("A", "A1"))
    b2.unit("A", "A1").locked.add(u)
    assert u.gone_to_ground
    b2.fight(np.random.default_rng(0), [b2.unit("A", "A1"), u])
    assert not u.gone_to_ground


def test_one_status_marker_replaces_the_other():
    b = Battle([marine("A1", gone_to_ground=True)], [marine("B1")])
    u = b.unit("A", "A1")
    assert u.marker == GONE_TO_GROUND
    u.place(EVADING)
    assert u.marker == EVADING and not u.gone_to_ground


def test_furious_charge_free_attacks_and_block():
    rng = np.random.default_rng(0)
    pol = {"A": get_policy(("focus", {"charge": True})), "B": get_policy("focus")}
    b = Battle([brute("A1", models=3, a=0), brute("A2", models=2, a=0)], [soft("B1", models=10, a=0)],
               log=True)
    t = b.turn("A", pol, rng)
    # both furious charges hit B1; B1 blocks the bigger one (A1), so only A2's two free attacks land
    assert t.lost["B"] == 2
    assert any("blocks A1" in e for e in t.events)


# -- policies ---------------------------------------------------------------------
def test_greedy_commits_the_fewest_units_that_reach_the_kill_probability():
    p = per_shot(5, 5, 5, 2, 3)
    units = [marine(f"A{i}", models=4) for i in range(6)]
    target = marine("B1", models=1)
    for goal in (0.3, 0.6, 0.9):
        k = next(k for k in range(1, 7) if 1 - (1 - p) ** (4 * k) >= goal)
        b = Battle(units, [target])
        plan = get_policy(("greedy", {"kill_probability": goal})).targets(b, "A")
        assert len(plan) == 1 and len(plan[0][1]) == k


def test_focus_fires_at_one_target_and_spread_at_two():
    a = [marine(f"A{i}") for i in range(4)]
    bb = [marine("B1"), marine("B2", models=8), marine("B3")]
    b = Battle(a, bb)
    focus = get_policy("focus").targets(b, "A")
    assert len(focus) == 1 and focus[0][0].name == "B2" and len(focus[0][1]) == 4
    spread = get_policy("spread").targets(b, "A")
    assert len(spread) == 2 and [len(x) for _, x in spread] == [2, 2]


def test_bad_policy_and_rules_name_the_field():
    with pytest.raises(InputError, match="policy_a"):
        play_turn([marine("A1")], [marine("B1")], policy_a="focuss")
    with pytest.raises(InputError, match="morale"):
        Rules(morale="panic")
    with pytest.raises(InputError, match="rules"):
        play_turn([marine("A1")], [marine("B1")], rules={"moral": "plain"})
    with pytest.raises(InputError, match="distinct names"):
        force(marine("A1"), marine("A1"))


def test_igougo_second_side_shoots_with_survivors_only():
    t = play_igougo([brute("A1", models=3, t=-12, sv=-12)], [soft("B1", models=3, bs=1, weapons=(SURE,))],
                    seed=0)
    assert t.lost == {"A": 0, "B": 3}
    t = play_turn([brute("A1", models=3, t=-12, sv=-12)], [soft("B1", models=3, bs=1, weapons=(SURE,))], seed=0,
                  policy_b=("focus", {"response": "engage"}))
    assert t.lost == {"A": 3, "B": 3}  # simultaneous: the target returns fire before step 8


def test_profiles_make_units_and_a_summary_reads_them():
    m = from_profile("Space Marine", weapons=["Boltgun"])
    assert (m.bs, m.t, m.sv, m.models, m.weapons[0].s) == (5, 2, 3, 5, 5)
    df = study([m.with_(name="A1")], [m.with_(name="B1")], turns=50, seed=0, progress=False)
    s = summary(df)
    assert s.loc[0, "turns"] == 50 and s.loc[0, "lost_B"] == pytest.approx(df["lost_B"].mean())


@pytest.mark.parametrize("response, snaps", [("under_fire", True), ("engage", False)])
def test_postponed_units_snap_shoot_at_a_passive_unit_taking_part_in_the_remaining_phase(response, snaps):
    """Greedy needs one unit for the sure kill chance asked, so A2 is left READY and
    is POSTPONED; it may snap shoot only at a passive unit that acts in the
    remaining units phase (an UNDER FIRE unit does, an OCCUPIED one does not)."""
    pol = {"A": get_policy(("greedy", {"kill_probability": 0.1})),
           "B": get_policy(("focus", {"response": response}))}
    # one unit's five shots make B1's two wounds with probability 0.146 > 0.1
    b = Battle([marine("A1"), marine("A2")], [marine("B1", models=1, w=2)], log=True)
    t = b.turn("A", pol, np.random.default_rng(1))
    assert b.unit("B", "B1").alive  # at this seed
    assert b.unit("A", "A1").status == "POSTPONED"
    assert any(e.startswith("A:A1 snap at B:B1") for e in t.events) == snaps
    assert any(e.startswith("B:B1 aimed at") for e in t.events)


def test_a_targeted_evading_unit_snap_shoots_and_becomes_occupied():
    # B1 kills its opponent in the early combats, so it is EVADING when A2 targets it
    b = Battle([soft("A1", models=1), marine("A2", models=5, weapons=(BOLTER, HEAVY))],
               [brute("B1", models=3, weapons=(SURE, SURE_BLADE))], log=True)
    b.lock("A1", "B1")
    t = b.turn("A", {"A": get_policy("focus"), "B": get_policy("focus")}, np.random.default_rng(0))
    assert "B:B1 after early combat: EVADING" in t.events
    shots = [e for e in t.events if e.startswith("A:A2 ")]
    assert shots and shots[0].startswith("A:A2 snap at B:B1: 5 dice")  # the heavy bolter stays silent
    assert any(e.startswith("B:B1 snap at A:A2") for e in t.events)
    assert b.unit("B", "B1").status == OCCUPIED or not b.unit("B", "B1").alive


def test_going_to_ground_when_attacked_gives_cover_against_the_phase():
    n = 1500
    df = study(ATTACKERS, [TARGET], policy_a="focus", policy_b=("focus", {"response": "go_to_ground"}),
               turns=n, seed=4, progress=False)
    entries = [dict(bs=5, s=5, ap=5, shots=5), dict(bs=5, s=4, ap=4, shots=12, weapon="heavy"),
               dict(bs=5, s=5, ap=5, shots=6)]
    exact = changes.volley(entries, t=2, sv=3, cover=1, models=6, go_to_ground=True)
    mean = float(np.asarray(exact.pmf) @ np.arange(len(exact.pmf)))
    assert abs(df["lost_B"].mean() - mean) < 5 * df["lost_B"].std(ddof=1) / math.sqrt(n)
    assert abs(mean - float(np.asarray(_exact_volley().pmf) @ np.arange(7))) > 0.3  # the cover matters
    assert (df["went_to_ground"] == 1).all()


@pytest.mark.parametrize("sees, lost", [(True, 2), (False, 1)])
def test_passive_units_acting_one_by_one_see_the_earlier_results(sees, lost):
    """Neither active unit can hurt anything, so both are POSTPONED; in the remaining units
    phase B1 dooms the first choice (A2) and B2 picks A1 only if it sees B1's dice."""
    pol = {"A": get_policy("focus"), "B": get_policy("focus")}
    b = Battle([soft("A1", models=1), soft("A2", models=1)],
               [brute("B1", models=1), brute("B2", models=1)], rules=Rules(passive_sees_results=sees))
    t = b.turn("A", pol, np.random.default_rng(0))
    assert t.lost["A"] == lost


def test_a_charge_at_a_unit_under_fire_needs_the_literal_reading_off():
    pol_a = get_policy(("focus", {"charge": True}))
    pol_b = get_policy(("focus", {"response": "under_fire"}))
    a = [marine("A1", a=0)]
    t = Battle(a, [marine("B1", a=0)]).turn("A", {"A": pol_a, "B": pol_b}, np.random.default_rng(0))
    assert t.fights == 1  # locked by the charge, the pair fights in the late combats
    strict = Battle(a, [marine("B1", a=0)], rules=Rules(charge_needs_engaged_target=True))
    with pytest.raises(InputError, match="ENGAGED enemy unit"):
        strict.turn("A", {"A": pol_a, "B": pol_b}, np.random.default_rng(0))


@pytest.mark.parametrize("call, field", [
    (lambda: study(None, [marine("B1")], turns=5, progress=False), "force_a"),
    (lambda: study([marine("A1")], [marine("A1"), marine("A1")], turns=5, progress=False), "force_b"),
    (lambda: study([marine("A1")], [marine("B1")], turns=0, progress=False), "turns"),
    (lambda: study([marine("A1")], [marine("B1")], turns=5, block=0, progress=False), "block"),
    (lambda: study([marine("A1")], [marine("B1")], turns=5, seed=-1, progress=False), "seed"),
    (lambda: study([marine("A1")], [marine("B1")], turns=5, mode="ugo", progress=False), "mode"),
    (lambda: study([marine("A1")], [marine("B1")], turns=5, policy_a=("greedy", {"kill_probability": 2}),
                   progress=False), "kill_probability"),
    (lambda: UnitSpec("x", models=0), "x.models"),
    (lambda: Weapon("w", s=5, ap=5, kind="laser"), "weapon.kind"),
    (lambda: from_profile("Space Marine", toughness=3), "from_profile keyword"),
    (lambda: summary(5), "df"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.field == field


def test_a_two_turn_game_carries_close_combat_into_the_next_early_combats():
    """Nobody can hurt anybody (Inv +12), so the charged pair stays locked: it fights in
    turn 1's late combats, then in turn 2's early and late combats (B active)."""
    a = [marine("A1", a=0, inv=12)]
    b = [marine("B1", a=0, inv=12)]
    kw = dict(policy_a=("focus", {"charge": True}), turns=3, progress=False)
    one = study(a, b, **kw)
    two = study(a, b, game_turns=2, **kw)
    assert (one["fights"] == 1).all() and (two["fights"] == 3).all()
    assert (two["phases"] == 1).all()  # in turn 2 both units are FIGHTING: no phase


# -- Postpone 6" and the markers of a unit gone to ground ------------------------------
def test_an_undeclared_unit_gone_to_ground_keeps_its_marker_and_its_cover():
    """Seed: a unit gone to ground "cannot move in any way"; Postpone is a 6" move,
    so an active unit gone to ground that is not declared keeps GO TO GROUND (+2
    cover) instead of becoming POSTPONED. Twelve unarmed models gone to ground,
    shot by twelve BS 1+ S 1+ AP 1+ guns in the remaining units phase: each shot
    hits on 3+ (1 + 2 cover), 10/12, so 12 x 10/12 = 10 models are lost on average
    (all 12 without the cover)."""
    n = 600
    lost = []
    p_hit = Fraction(sum(1 for h in range(1, 13) if h >= 1 + changes.GO_TO_GROUND_COVER), 12)
    assert p_hit == Fraction(10, 12)
    for seed in range(n):
        b = Battle([soft("A1", models=12, gone_to_ground=True)], [brute("B1", models=12)])
        t = b.turn("A", {"A": get_policy("focus"), "B": get_policy("focus")}, np.random.default_rng(seed))
        if seed == 0:
            assert b.unit("A", "A1").marker == GONE_TO_GROUND and b.unit("A", "A1").status != "POSTPONED"
        lost.append(t.lost["A"])
    mean, sd = float(np.mean(lost)), float(np.std(lost, ddof=1))
    assert abs(mean - 12 * float(p_hit)) < 5 * sd / math.sqrt(n)
    assert mean < 11  # the marker's cover, not 12.0 models


class _Scripted:
    """Phase 1: A1 postpones, declared at B1; phase 2: A2 holds ground at B2."""

    def __init__(self, **kw):
        self.policy = get_policy(("focus", kw))

    def __getattr__(self, name):
        return getattr(self.policy, name)

    def targets(self, battle, side):
        ready = {u.name: u for u in battle.ready(side)}
        foes = {u.name: u for u in battle.targetable(battle.other(side))}
        if "A1" in ready and "B1" in foes:
            return [(foes["B1"], [ready["A1"]])]
        if "A2" in ready and "B2" in foes:
            return [(foes["B2"], [ready["A2"]])]
        return []

    def attack_action(self, battle, unit, target):
        return "postpone" if unit.name == "A1" else "hold_ground"


def test_a_unit_postponed_in_a_phase_snap_shoots_in_a_later_one():
    """Postpone 6": "You can remove this marker during one of the later PHASES in
    this TURN, at which point the unit may perform a SNAP SHOT at a PASSIVE UNIT
    that takes part in this phase": A1 postpones in phase 1 and snap shoots at
    phase 2's target B2, its marker removed (no second snap in the remaining phase)."""
    b = Battle([marine("A1"), marine("A2")], [soft("B1", models=3), soft("B2", models=3)], log=True)
    t = b.turn("A", {"A": _Scripted(), "B": get_policy(("focus", {"response": "under_fire"}))},
               np.random.default_rng(0))
    events = t.events
    phase2 = events.index(next(e for e in events if e.startswith("phase 2:")))
    snaps = [i for i, e in enumerate(events) if e.startswith("A:A1 snap at ")]
    assert len(snaps) == 1 and snaps[0] > phase2 and events[snaps[0]].startswith("A:A1 snap at B:B2")
    assert b.unit("A", "A1").status != "POSTPONED"
    assert not any(e.startswith("A:A1 ") and " at " in e for e in events[:phase2])  # postponing shoots nothing


def test_a_unit_gone_to_ground_cannot_postpone():
    b = Battle([marine("A1", gone_to_ground=True), marine("A2")], [soft("B1", models=3), soft("B2", models=3)])
    with pytest.raises(InputError, match=r"^action: expected no Postpone 6\" while gone to ground.*"
                                         r"cannot move in any way"):
        b.turn("A", {"A": _Scripted(), "B": get_policy("focus")}, np.random.default_rng(0))


class _RemainingAs:
    """A passive policy whose remaining-units-phase action is ``action`` at the first foe."""

    def __init__(self, action):
        self.policy, self.action = get_policy("focus"), action

    def __getattr__(self, name):
        return getattr(self.policy, name)

    def remaining(self, battle, unit, foes):
        return (self.action, foes[0]) if foes else None


@pytest.mark.parametrize("action, shoots", [("hold_ground", True), ("tactical_charge", True),
                                            ("go_to_ground", False)])
def test_the_remaining_units_shoot_only_after_hold_ground_or_tactical_charge(action, shoots):
    """Seed, REMAINING UNITS PHASE step 1: "They can only shoot after HOLD GROUND or
    TACTICAL CHARGE actions": Go to ground (whose one bullet is a snap shot in a
    phase) fires nothing here, and places its marker."""
    b = Battle([soft("A1", models=3)], [brute("B1", models=3)], log=True)
    t = b.turn("A", {"A": get_policy("focus"), "B": _RemainingAs(action)}, np.random.default_rng(0))
    fired = [e for e in t.events if e.startswith("B:B1 ") and " at A:A1" in e and "charge" not in e]
    assert bool(fired) == shoots, t.events
    assert (b.unit("B", "B1").marker == GONE_TO_GROUND) == (action == "go_to_ground")
    assert (t.lost["A"] > 0) == shoots


def test_the_remaining_units_phase_refuses_other_actions():
    b = Battle([soft("A1", models=3)], [brute("B1", models=3)])
    with pytest.raises(InputError, match=r"^action: expected one of 'hold_ground', 'tactical_charge', "
                                         r"'go_to_ground'"):
        b.turn("A", {"A": get_policy("focus"), "B": _RemainingAs("move")}, np.random.default_rng(0))
