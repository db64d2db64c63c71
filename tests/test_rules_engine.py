"""The rule-file engine's budgets, closed forms, per-attack figures and stage distributions,
against brute force (tests/brute_rules.py: itertools over every face, Fractions)."""
from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from brute_rules import attack_outcomes, brute, stage, stage_pmfs, to_toml
from workbench import Outcome, rules, systems
from workbench.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-12


def _load(text, path="game.toml"):
    return rules.loads(text, path)


# ---------------------------------------------------------------------------
# budgets: hostile files are refused at once, naming the field
# ---------------------------------------------------------------------------
def _hostile_extra():
    stages = [stage(name=f"s{i}", target=2, critical=(6,), on_critical="extra", extra=20) for i in range(16)]
    return to_toml(stages, 1, dict(damage=1))


def _hostile_all_critical():
    stages = [stage(name=f"s{i}", target=2, critical=tuple(range(1, 7)), on_critical="extra", extra=20)
              for i in range(3)]
    return to_toml(stages, 1, dict(damage=1))


@pytest.mark.timeout(10)
@pytest.mark.parametrize("method", ["exact", "sampled"])
def test_sixteen_stages_of_extra_criticals_are_refused_naming_the_stage(method):
    with pytest.raises(rules.RuleFileError) as exc:
        _load(_hostile_extra()).attack(method=method)
    assert exc.value.field == "stages[0].extra" and "tokens" in str(exc.value)
    assert isinstance(exc.value, InputError) and str(exc.value).startswith("game.toml")


@pytest.mark.timeout(10)
def test_every_face_critical_is_refused_sampled_and_resolved_exactly():
    sysm = _load(_hostile_all_critical())
    with pytest.raises(rules.RuleFileError) as exc:
        sysm.attack(method="sampled")
    assert exc.value.field == "samples"
    o = sysm.attack()            # 21 ** 3 successes for sure, no unit size: each removes a model
    assert o.pmf.size == 21 ** 3 + 1 and o.pmf[-1] == pytest.approx(1.0, abs=TOL)


@pytest.mark.timeout(10)
def test_five_thousand_attacks_sampled_are_refused_and_exact_is_quick():
    sysm = _load(to_toml([stage(name="hit", target=4), stage(name="wound", target=4)], 5000,
                         dict(damage=1, models=6000)))
    with pytest.raises(rules.RuleFileError) as exc:
        sysm.attack(method="sampled")
    assert exc.value.field == "samples"
    o = sysm.attack()
    assert o.mean == pytest.approx(5000 / 4, rel=1e-9)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("old, new, field", [
    ("die = 6", "die = " + "9" * 5000, "system.die"),
    ('damage = "1"', 'damage_roll = "' + "9" * 5000 + 'd6"', "removal.damage_roll"),
    ('damage = "1"', 'damage_roll = "d' + "9" * 5000 + '"', "removal.damage_roll"),
])
def test_integers_of_thousands_of_digits_are_a_rule_file_error(old, new, field):
    text = to_toml([stage(name="hit", target=4)], 1, dict(damage=1))
    assert old in text
    with pytest.raises(rules.RuleFileError) as exc:
        _load(text.replace(old, new))
    assert exc.value.field == field and len(str(exc.value)) < 300


@pytest.mark.timeout(10)
def test_a_rolled_damage_chain_past_the_work_budget_is_refused():
    stages = [stage(name="hit", target=1)]
    sysm = _load(to_toml(stages, 5000, dict(damage_roll=(10, 100, 0), models=1000, wounds=20)))
    with pytest.raises(rules.RuleFileError) as exc:
        sysm.attack()
    assert exc.value.field == "removal"


# ---------------------------------------------------------------------------
# closed forms and the chain against brute force
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("removal", [
    dict(damage=1, wounds=3, models=2), dict(damage=2, wounds=3, models=2), dict(damage=3, wounds=2),
    dict(damage=2, wounds=3, models=1, spill=True), dict(damage=0, wounds=1, models=2),
    dict(damage_roll=(1, 3, 0), wounds=2, models=2), dict(damage_roll=(1, 3, 0), wounds=2, models=2, spill=True),
])
def test_removal_against_brute_force(removal):
    stages = [stage(name="hit", target=3, critical=(6,), on_critical="extra"), stage(name="wound", target=4)]
    o = _load(to_toml(stages, 3, removal)).attack()
    pmf, eff = brute(stages, 3, removal)
    width = max(len(pmf), o.pmf.size)
    want = np.array([float(x) for x in pmf] + [0.0] * (width - len(pmf)))
    got = np.concatenate([o.pmf, np.zeros(width - o.pmf.size)])
    assert np.allclose(got, want, atol=TOL)
    assert o.effects["wasted_damage"] == pytest.approx(float(eff["wasted_damage"]), abs=1e-10)


# ---------------------------------------------------------------------------
# per-attack figures where criticals add hits or skip stages
# ---------------------------------------------------------------------------
def _per_attack_brute(stages):
    one = attack_outcomes(stages)
    mean = sum(p * f for (f, *_), p in one.items())
    any_ = sum(p for (f, *_), p in one.items() if f > 0)
    return mean, any_


SUSTAINED = [stage(name="to hit", target=4, reroll="ones", critical=(6,), on_critical="extra", extra=1),
             stage(name="to wound", target=5), stage(name="save", target=5, passes_on="fail")]


def test_a_natural_six_is_an_extra_hit_per_attack_figures():
    # the worked example: 14/81 expected unsaved wounds per attack, 119/729 for at least one
    mean, any_ = _per_attack_brute(SUSTAINED)
    assert (mean, any_) == (Fraction(14, 81), Fraction(119, 729))
    o = _load(to_toml(SUSTAINED, 10, dict(damage=1))).attack()
    assert o.per_attack_mean == mean and o.per_attack_any == any_
    text = o.explain()
    assert "14/81" in text and "119/729" in text and "7/54" not in text
    assert "token" not in text.lower() and "to to" not in text
    # a failed save is what passes the save stage
    assert o.stages[-1].name == "save failed" and o.stages[-1].probability == Fraction(4, 6)
    assert o.mean == pytest.approx(10 * float(mean), abs=1e-9)


@pytest.mark.parametrize("kinds", [("extra", "skip_next", "to_end"), ("skip_next", "none", "extra"),
                                   ("to_end", "extra", "none")])
def test_per_attack_figures_match_brute_force_for_every_critical(kinds):
    stages = [stage(name=f"s{i}", target=3 + i % 2, critical=(6,), on_critical=k, extra=2,
                    reroll="failed" if i == 1 else "none") for i, k in enumerate(kinds)]
    stages.append(stage(name="save", target=4, passes_on="fail"))
    o = _load(to_toml(stages, 2, dict(damage=1))).attack()
    assert (o.per_attack_mean, o.per_attack_any) == _per_attack_brute(stages)
    s = _load(to_toml(stages, 2, dict(damage=1))).attack(method="sampled", samples=2000, seed=1)
    assert (s.per_attack_mean, s.per_attack_any) == _per_attack_brute(stages)


def test_the_dashboards_per_attack_numbers_are_the_expected_successes_and_at_least_one():
    from workbench.ui.numbers import number_rows

    mean, any_ = _per_attack_brute(SUSTAINED)
    o = _load(to_toml(SUSTAINED, 10, dict(damage=1))).attack()
    rows = {css: (label, value) for css, label, value in number_rows(o)}
    assert rows["wb-per-attack-mean"][1].startswith(f"{mean.numerator}/{mean.denominator} ")
    assert rows["wb-per-attack"][1].startswith(f"{any_.numerator}/{any_.denominator} ")
    assert "at least one" in rows["wb-per-attack"][0] and "every step" not in rows["wb-per-attack"][0]
    assert not any("7/54" in value for _, value in rows.values())  # the product of the stages' chances
    plain = _load(to_toml([stage(name="hit", target=4), stage(name="save", target=5, passes_on="fail")], 3,
                          dict(damage=1))).attack()
    label, value = {css: (lb, v) for css, lb, v in number_rows(plain)}["wb-per-attack"]
    assert "every step" in label and value.startswith("1/3 ")


def test_kill6_per_attack_is_the_expected_successes_not_the_product():
    k6 = rules.load(ROOT / "rules" / "kill6.toml")
    o = k6.attack()
    assert float(o.per_attack_mean) == pytest.approx(0.2377, abs=1e-4)   # the 23.8 %
    assert "Per attack: expected" in o.explain() and "Per attack: expected" in o.to_markdown()


def test_without_multiplying_criticals_the_product_stays():
    stages = [stage(name="hit", target=4), stage(name="save", target=5, passes_on="fail")]
    o = _load(to_toml(stages, 3, dict(damage=1))).attack()
    assert o.per_attack_mean is None and o.per_attack == Fraction(3, 6) * Fraction(4, 6)
    assert "Per attack: 3/6 × 4/6 = 1/3" in o.explain()


# ---------------------------------------------------------------------------
# stage_pmfs: how many pass each stage over all attacks
# ---------------------------------------------------------------------------
def test_stage_pmfs_against_brute_force():
    stages = [stage(name="hit", target=3, critical=(6,), on_critical="extra", extra=1, reroll="ones"),
              stage(name="pierce", target=4, critical=(5, 6), on_critical="skip_next"),
              stage(name="wound", target=4, critical=(6,), on_critical="to_end"),
              stage(name="save", target=5, passes_on="fail")]
    count = 2
    want = stage_pmfs(stages, count)
    o = _load(to_toml(stages, count, dict(damage=1))).attack()
    assert list(o.stage_pmfs) == [st["name"] for st in stages]
    for st, w in zip(stages, want):
        got = o.stage_pmfs[st["name"]]
        ref = np.array([float(w.get(k, 0)) for k in range(max(max(w) + 1, got.size))])
        assert np.allclose(np.concatenate([got, np.zeros(ref.size - got.size)]), ref, atol=TOL), st["name"]
        assert float(got @ np.arange(got.size)) == pytest.approx(o.effects[st["name"]], abs=1e-10)


def test_stage_pmfs_survive_a_pickle():
    import pickle
    o = _load(to_toml(SUSTAINED, 4, dict(damage=1))).attack()
    again = pickle.loads(pickle.dumps(dict(o.stage_pmfs)))
    assert set(again) == {"to hit", "to wound", "save"}


# ---------------------------------------------------------------------------
# layering and display
# ---------------------------------------------------------------------------
def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
            out |= {"." * node.level + a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_outcome_does_not_import_words_and_the_loader_not_the_registry():
    assert not {m for m in _imports(ROOT / "workbench" / "outcome.py") if "teach" in m}
    assert not {m for m in _imports(ROOT / "workbench" / "rules" / "loader.py") if "systems" in m}


def test_a_rule_file_with_a_built_in_key_is_refused_by_the_registry(tmp_path, monkeypatch):
    text = to_toml([stage(name="hit", target=4)], 1, dict(damage=1), key="changes")
    assert _load(text).key == "changes"          # the file itself is fine
    (tmp_path / "clash.toml").write_text(text)
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    bad = [b for b in systems.broken() if b.path.name == "clash.toml"]
    assert bad and "built-in" in bad[0].message and "system.key" in bad[0].message
    assert systems.get("changes").name != "Test game"


def test_an_outcome_shows_itself_in_a_notebook():
    o = _load(to_toml(SUSTAINED, 3, dict(damage=1))).attack()
    md = o._repr_markdown_()
    assert md == o.to_markdown(inputs=False)
    assert "P(exactly N)" in md and "To hit" in md and isinstance(o, Outcome)
    assert o.explain().startswith("Test game: attack (exact)")


def test_a_rule_system_a_mechanism_system_and_a_folder_refuse_every_change():
    """The three are built once from their files (tests/../rules): afterwards no attribute
    can be set, replaced or deleted, as the frozen records they are made of."""
    from workbench.rules import load_system

    root = Path(__file__).resolve().parents[1] / "rules"
    made = {"RuleSystem": load_system(root / "kill6.toml"), "RuleFolder": load_system(root / "changes"),
            "MechanismSystem": load_system(root / "forgotten").parts["close_combat"]}
    for name, system in made.items():
        assert type(system).__name__ == name
        for attempt, args in ((setattr, ("key", "other")), (setattr, ("fresh", 1)), (delattr, ("key",))):
            with pytest.raises(AttributeError, match=f"a {name} is immutable"):
                attempt(system, *args)
        assert system.key in ("kill6", "changes", "forgotten")
