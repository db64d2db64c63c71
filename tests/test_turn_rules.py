"""The turn simulator's transports, Desperate Charge and go-to-ground cover, against the seed."""
from __future__ import annotations

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest

from workbench.errors import InputError
from workbench.systems import changes
from workbench.turn import Battle, Policy, Rules, UnitSpec, Weapon, force, get_policy, study, target_count
from workbench.turn.state import OCCUPIED, UNDER_FIRE

BOLTER = Weapon("Boltgun", s=5, ap=5, shots=1, kind="light")
HEAVY = Weapon("Heavy Bolter", s=4, ap=4, shots=3, kind="heavy")
KNIFE = Weapon("Knife", s=5, ap=8, kind="melee")


def marine(name, models=5, **kw):
    return UnitSpec(name=name, models=models, weapons=kw.pop("weapons", (BOLTER, KNIFE)), **kw)


def per_shot(bs, s, ap, t, sv, inv=0, cover=0):
    """Brute force over the three D12 faces of one shot (an independent count)."""
    ok = sum(1 for h in range(1, 13) for p in range(1, 13) for w in range(1, 13)
             if h >= bs + max(cover, inv) and p >= ap + sv and w >= s + t)
    return Fraction(ok, 12 ** 3)


def mean_of(outcome) -> float:
    pmf = np.asarray(outcome.pmf)
    return float(pmf @ np.arange(pmf.size))


# -- a firer gone to ground: "Any unit it fires at receives the same cover modifier" ------------
def test_the_simulator_and_changes_shooting_share_the_firer_cover_switch():
    default = inspect.signature(changes.shooting).parameters["firer_cover_rule"].default
    assert Rules().firer_cover_rule == default == "same"
    with pytest.raises(InputError) as info:
        Rules(firer_cover_rule="best")
    assert info.value.field == "firer_cover_rule"


@pytest.mark.parametrize("rule, cover", [("same", 0 + 2), ("better", 4)])
def test_a_firer_gone_to_ground_gives_its_target_the_cover_of_the_switch(rule, cover):
    """The firer stands in cover 0 and has gone to ground (+2); its target stands in cover 4:
    "same" gives the target 2, "better" the better of 2 and 4."""
    b = Battle([marine("A1", gone_to_ground=True)], [marine("B1", cover=4)],
               rules=Rules(firer_cover_rule=rule))
    tests = b.gun_tests(b.unit("A", "A1"), BOLTER, "snap", b.unit("B", "B1"))
    p = math.prod(t.success for t in tests)
    assert p == per_shot(5, 5, 5, 2, 3, cover=cover)
    exact = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, cover=4, shots=1, action="snap",
                             firer_gone_to_ground=True, firer_cover=0, firer_cover_rule=rule)
    assert float(exact.pmf[1]) == pytest.approx(float(p), abs=1e-12)


@pytest.mark.parametrize("rule", ["same", "better"])
def test_return_fire_from_the_ground_matches_changes_shooting(rule):
    """B1 goes to ground when attacked and snap shoots back at A1 (cover 4) with all 10 models."""
    n = 1500
    df = study([marine("A1", models=10, cover=4)], [marine("B1", models=10)], rules={"firer_cover_rule": rule},
               policy_b=("focus", {"response": "go_to_ground"}), turns=n, seed=3, progress=False)
    exact = {r: mean_of(changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, cover=4, shots=10, models=10,
                                         action="snap", firer_gone_to_ground=True, firer_cover=0,
                                         firer_cover_rule=r)) for r in ("same", "better")}
    got = df["return_fire_lost"]
    assert abs(got.mean() - exact[rule]) < 5 * got.std(ddof=1) / math.sqrt(n)
    assert abs(exact["same"] - exact["better"]) > 10 * got.std(ddof=1) / math.sqrt(n)  # the switch matters


@pytest.mark.parametrize("rule, roll", [("bs_plus_4", 8 + 4), ("flat_4", 4)])
def test_a_heavy_weapon_in_a_shot_follows_the_heavy_shot_switch_of_changes_shooting(rule, roll):
    """"heavy weapons with BALLISTIC SKILL U+4": BS 8 + 4 = 12+ by default, a flat 4+ with the
    switch; the simulator and changes.shooting share the name, the values and the default."""
    default = inspect.signature(changes.shooting).parameters["heavy_shot"].default
    assert Rules().heavy_shot == default == "bs_plus_4"
    b = Battle([marine("A1", bs=8, weapons=(HEAVY,))], [marine("B1", cover=1)], rules=Rules(heavy_shot=rule))
    p = math.prod(t.success for t in b.gun_tests(b.unit("A", "A1"), HEAVY, "shot", b.unit("B", "B1")))
    assert p == per_shot(roll, 4, 4, 2, 3, cover=1)
    exact = changes.shooting(bs=8, s=4, ap=4, t=2, sv=3, cover=1, shots=1, weapon="heavy", action="shot",
                             heavy_shot=rule)
    assert float(exact.pmf[1]) == pytest.approx(float(p), abs=1e-12)
    # an aimed shot is at full BS whatever the switch
    aimed = math.prod(t.success for t in b.gun_tests(b.unit("A", "A1"), HEAVY, "aimed", b.unit("B", "B1")))
    assert aimed == per_shot(8, 4, 4, 2, 3, cover=1)
    with pytest.raises(InputError) as info:
        Rules(heavy_shot="flat_5")
    assert info.value.field == "heavy_shot"


# -- Desperate Charge: "only begins fighting in the next turn" -------------------------------------
@pytest.mark.parametrize("kind, turn_one, two_turns", [("furious", 1, 3), ("desperate", 0, 2)])
def test_a_desperate_charge_begins_fighting_only_in_the_next_turn(kind, turn_one, two_turns):
    """Nobody can hurt anybody (Inv +12), so a pair that is locked stays locked. A Furious
    Charge is FIGHTING at once (late combats of turn 1, then early and late of turn 2); a
    Desperate Charge fights first in turn 2's early combats, then in its late combats."""
    a = [marine("A1", a=0, inv=12)]
    b = [marine("B1", a=0, inv=12)]
    kw = dict(policy_a=("focus", {"charge": True, "charge_kind": kind}), turns=3, progress=False)
    assert (study(a, b, **kw)["fights"] == turn_one).all()
    assert (study(a, b, game_turns=2, **kw)["fights"] == two_turns).all()


def test_after_a_desperate_charge_the_pair_is_locked_but_not_fighting():
    pol = {"A": get_policy(("focus", {"charge": True, "charge_kind": "desperate"})), "B": get_policy("focus")}
    b = Battle([marine("A1", a=0, inv=12)], [marine("B1", a=0, inv=12)], log=True)
    t = b.turn("A", pol, np.random.default_rng(0))
    a1, b1 = b.unit("A", "A1"), b.unit("B", "B1")
    assert a1.locked == {b1} and b1.locked == {a1}
    assert a1.status == OCCUPIED and b1.status == OCCUPIED  # step 9: only Tactical/Furious make FIGHTING
    assert t.fights == 0 and any("blocks" not in e and "desperate_charge at B:B1" in e for e in t.events)
    t2 = b.turn("B", pol, np.random.default_rng(1))  # the next turn's early combats fight it
    assert t2.events.index("A:A1 after early combat: FIGHTING") < t2.events.index("turn: B active") + 3
    assert t2.fights == 2  # early and late combats of turn 2


def test_a_desperate_charger_sits_out_a_fight_its_target_has_this_turn():
    """A1 Desperate Charges B1 and A2 Furious Charges it in the same phase: B1 and A2 are
    FIGHTING and fight in the late combats, A1 (whose every attack would remove a model) does not
    strike until the next turn."""
    from workbench.turn import FocusFire

    class Mixed(FocusFire):
        def attack_action(self, battle, unit, target):
            return "desperate_charge" if unit.name == "A1" else "furious_charge"

    sure_blade = Weapon("Sure blade", s=1, ap=1, kind="melee")
    a1 = UnitSpec("A1", models=3, ws=1, weapons=(sure_blade,))
    a2 = marine("A2", ws=13, a=0)  # never hits
    b1 = UnitSpec("B1", models=10, t=-12, sv=-12, d=-12, a=0)
    b = Battle([a1, a2], [b1], log=True)
    t = b.turn("A", {"A": Mixed(charge=True), "B": get_policy("focus")}, np.random.default_rng(0))
    assert b.unit("B", "B1").locked == {b.unit("A", "A1"), b.unit("A", "A2")}
    assert t.fights == 1 and b.unit("B", "B1").models == 10
    assert not any(e.startswith("A:A1 3 attacks") for e in t.events)
    t2 = b.turn("B", {"A": get_policy("focus"), "B": get_policy("focus")}, np.random.default_rng(1))
    assert any(e.startswith("A:A1 3 attacks at B:B1: 3 wounds") for e in t2.events)


def test_a_desperate_charge_reaches_as_often_as_its_6_plus_d6_roll():
    """Charges declared from 10" away lock the pair when 6+D6 >= 10: changes.reach_probability."""
    n = 1200
    pol = {"A": get_policy(("focus", {"charge": True, "charge_kind": "desperate", "charge_distance": 10})),
           "B": get_policy("focus")}
    rng = np.random.default_rng(7)
    locked = 0
    for _ in range(n):
        b = Battle([marine("A1", a=0)], [marine("B1", a=0)])
        b.turn("A", pol, rng)
        locked += bool(b.unit("A", "A1").locked)
    p = float(changes.reach_probability(10, "desperate_charge").pmf[1])
    assert p == pytest.approx(0.5)
    assert abs(locked / n - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert 0 < locked < n


def test_a_desperate_charge_obeys_the_charge_rules():
    pol_a = get_policy(("focus", {"charge": True, "charge_kind": "desperate"}))
    strict = Battle([marine("A1")], [marine("B1")], rules=Rules(charge_needs_engaged_target=True))
    with pytest.raises(InputError, match="ENGAGED enemy unit"):
        strict.turn("A", {"A": pol_a, "B": get_policy(("focus", {"response": "under_fire"}))},
                    np.random.default_rng(0))
    with pytest.raises(InputError) as info:
        get_policy(("focus", {"charge_kind": "screaming"}))
    assert info.value.field == "charge_kind"
    with pytest.raises(InputError) as info:
        get_policy(("focus", {"charge_distance": -1}))
    assert info.value.field == "charge_distance"


# -- transports: "it may now perform a DISEMBARK action" / "They cannot DISEMBARK" ----------------
RHINO = UnitSpec("Rhino", models=1, t=4, sv=3, w=3, weapons=())
CARGO = marine("Squad", models=5, weapons=(BOLTER, HEAVY), embarked_on="Rhino")


def test_an_embarked_unit_is_named_by_its_transport_and_makes_it_two_targets():
    assert target_count([RHINO], loaded=["Rhino"]) == 2 and target_count([RHINO]) == 1
    b = Battle([marine("A1"), marine("A2")], [RHINO, CARGO, marine("B3")])
    rhino, b3 = b.unit("B", "Rhino"), b.unit("B", "B3")
    assert b.count_targets([rhino]) == 2 and b.unit("B", "Squad").embarked
    assert b.unit("B", "Squad") not in b.targetable("B")  # off the table: only its transport is a target
    with pytest.raises(InputError, match="counts as 3 units"):
        b.check_plan([(rhino, [b.unit("A", "A1")]), (b3, [b.unit("A", "A2")])], "A", "B")
    with pytest.raises(InputError, match="off the table"):
        b.fire(np.random.default_rng(0), b.unit("A", "A1"), b.unit("B", "Squad"), "aimed")
    for bad, field in ((lambda: force(RHINO, marine("S", embarked_on="Nope")), "S.embarked_on"),
                       (lambda: force(RHINO, CARGO, marine("S2", embarked_on="Squad")), "S2.embarked_on"),
                       (lambda: marine("S", embarked_on="S"), "S.embarked_on"),
                       (lambda: marine("S", embarked_on="Rhino", gone_to_ground=True), "S.gone_to_ground")):
        with pytest.raises(InputError) as info:
            bad()
        assert info.value.field == field


def test_a_disembarking_unit_shoots_as_the_exact_shot_of_its_bullets():
    """Step 4: the squad inside the targeted Rhino ENGAGEs, disembarks (Disembark 6" ••, a SHOT:
    heavy bolters at BS +4, boltguns at full BS) and shoots A1; the Rhino has no guns, so every
    model A loses is the disembark shot's: changes.volley exact, every bin within 5 SE."""
    n = 2000
    df = study([marine("A1", models=10)], [RHINO, CARGO], turns=n, seed=21, progress=False)
    exact = np.asarray(changes.volley([dict(bs=5, s=5, ap=5, shots=5, action="shot"),
                                       dict(bs=5, s=4, ap=4, shots=15, weapon="heavy", action="shot")],
                                      t=2, sv=3, models=10).pmf)
    freq = np.bincount(df["lost_A"], minlength=exact.size)[:exact.size] / n
    se = np.sqrt(exact * (1 - exact) / n) + 1e-12
    assert np.all(np.abs(freq - exact) <= 5 * se + 1.0 / n)
    assert abs(df["lost_A"].mean() - mean_of_pmf(exact)) < 5 * df["lost_A"].std(ddof=1) / math.sqrt(n)
    # the aimed reading (every weapon at full BS) would be clearly different
    aimed = mean_of(changes.volley([dict(bs=5, s=5, ap=5, shots=5), dict(bs=5, s=4, ap=4, shots=15,
                                                                          weapon="heavy")], t=2, sv=3, models=10))
    assert abs(aimed - mean_of_pmf(exact)) > 10 * df["lost_A"].std(ddof=1) / math.sqrt(n)
    assert (df["engaged"] == 2).all()  # the Rhino and the squad inside both answered


def mean_of_pmf(pmf) -> float:
    return float(np.asarray(pmf) @ np.arange(len(pmf)))


@pytest.mark.parametrize("disembark, response", [(False, "engage"), (True, "under_fire")])
def test_an_embarked_unit_that_stays_inside_or_under_fire_never_shoots(disembark, response):
    pol_b = get_policy(("focus", {"disembark": disembark, "response": response}))
    sturdy = RHINO.with_(w=50)  # never destroyed here, so the squad is never set down
    for seed in range(10):
        b = Battle([marine("A1", models=10)], [sturdy, CARGO], log=True)
        t = b.turn("A", {"A": get_policy("focus"), "B": pol_b}, np.random.default_rng(seed))
        assert t.lost["A"] == 0 and not any("disembarks" in e for e in t.events)
        squad = b.unit("B", "Squad")
        assert squad.status == (OCCUPIED if response == "engage" else UNDER_FIRE)


def test_step_6_refuses_a_disembark():
    class LateDisembark(Policy):
        """Stays inside in step 4, then tries to DISEMBARK in step 6."""
        name = "late"

        def targets(self, battle, side):  # pragma: no cover - passive only here
            return []

        def disembark_at(self, battle, unit, attackers):
            return None

        def reply(self, battle, unit, attackers):
            if unit.embarked:
                return "disembark", attackers[0]
            return super().reply(battle, unit, attackers)

    b = Battle([marine("A1", models=10)], [RHINO, CARGO])
    with pytest.raises(InputError, match="They cannot DISEMBARK"):
        b.turn("A", {"A": get_policy("focus"), "B": LateDisembark()}, np.random.default_rng(0))
    # the named policies never do it: an embarked unit replies nothing in step 6
    b2 = Battle([marine("A1", models=10)], [RHINO, CARGO])
    assert get_policy("focus").reply(b2, b2.unit("B", "Squad"), [b2.unit("A", "A1")]) == (None, None)


@pytest.mark.parametrize("rule, squad_left", [("unharmed", 5), ("lost", 0)])
def test_a_unit_inside_a_destroyed_transport(rule, squad_left):
    """The seed does not say; by default the unit inside is set down unharmed (shots went at the
    transport only), with Rules(wrecked_transport="lost") it goes with its transport."""
    sure = Weapon("Sure", s=1, ap=1, shots=1)
    killer = UnitSpec("A1", models=3, bs=1, weapons=(sure,))
    rhino = RHINO.with_(t=-12, sv=-12)
    pol_b = get_policy(("focus", {"disembark": False}))
    b = Battle([killer], [rhino, CARGO], rules=Rules(wrecked_transport=rule))
    t = b.turn("A", {"A": get_policy("focus"), "B": pol_b}, np.random.default_rng(0))
    squad = b.unit("B", "Squad")
    assert not b.unit("B", "Rhino").alive and not squad.embarked
    assert squad.models == squad_left and t.lost["B"] == 1 + (5 - squad_left)
    with pytest.raises(InputError) as info:
        Rules(wrecked_transport="burning")
    assert info.value.field == "wrecked_transport"


def test_after_disembarking_the_transport_counts_as_one_unit():
    b = Battle([marine("A1", models=10)], [RHINO, CARGO], log=True)
    rhino = b.unit("B", "Rhino")
    assert b.count_targets([rhino]) == 2
    t = b.turn("A", {"A": get_policy("focus"), "B": get_policy("focus")}, np.random.default_rng(0))
    assert "B:Squad disembarks from Rhino" in t.events
    assert not b.unit("B", "Squad").embarked and b.count_targets([rhino]) == 1
