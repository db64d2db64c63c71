"""A rule file's stages in a player's words: what each roll needs and what passes it."""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

from fractions import Fraction

from ..dice import faces_text
from ..outcome import Stage
from .die import StageDie, need_text
from .spec import Removal, RuleStage

__all__ = ["stage_words", "passing_name", "outcome_stages", "said", "save_stage"]


def _faces(faces) -> str:
    faces = list(faces)
    if len(faces) == 1:
        return f"a natural {faces[0]}"
    return "a natural " + ", ".join(map(str, faces[:-1])) + f" or {faces[-1]}"


def stage_words(st: RuleStage, die: StageDie, following: str | None, on_critical: bool = True) -> str:
    """What a stage needs, in a player's words: 'needs 4+ on a d6; a natural 1 always fails; ...'."""
    t, m = int(die.target), int(die.modifier)
    dX = f"d{st.die}"
    need = t - m
    text = need_text(need, st.die, st.roll == "high", dX, f"any roll of a {dX} succeeds")
    if m:
        text += f" (target {t}, modifier {m:+d})"
    extra = []
    if st.always_fail:
        extra.append(f"{_faces(st.always_fail)} always fails")
    if st.always_succeed:
        extra.append(f"{_faces(st.always_succeed)} always succeeds")
    if st.long_shot:
        best = 1 if st.roll == "low" else st.die
        if (st.roll == "low" and need < 1) or (st.roll == "high" and need > st.die):
            text = f"out of reach on a {dX}: needs a {best} then another {best}"
    if st.critical and not np.all(np.asarray(die.critical_on)):
        extra.append(f"{_faces(st.critical)} is no critical at these values")
    elif st.critical:
        crit = f"{_faces(st.critical)} is a critical success"
        if st.on_critical == "extra":
            crit += f": it counts as {1 + st.extra} successes" + (
                f", each rolling {following}" if following else "")
        elif st.on_critical == "skip_next":
            crit += f": passes {following} without a roll" if following else ": a success"
        elif st.on_critical == "to_end":
            crit += ": it passes every remaining stage without a roll"
        if st.on_critical != "none" and st.on_critical_when is not None and not on_critical:
            crit = f"{_faces(st.critical)} is a critical success (an ordinary one here)"
        extra.append(crit)
    near = need - 1 if st.roll == "high" else need + 1
    if st.near_miss_tally and 1 <= near <= st.die:
        extra.append(f"a {near} is a near miss")
    if st.reroll == "ones":
        extra.append("a natural 1 is rolled again once")
    elif st.reroll == "failed":
        extra.append("a failed roll is rolled again once")
    if st.passes_on == "fail":
        extra.append("passed when the roll fails")
    return text + ("; " + "; ".join(extra) if extra else "")


def passing_name(st: RuleStage) -> str:
    """What passes a stage, in the file's words: its name, or on a ``passes_on = "fail"`` stage
    (a save the target fails) "<name> failed"."""
    return f"{st.name} failed" if st.passes_on == "fail" else st.name


def outcome_stages(stages: Sequence[RuleStage], dice: Sequence[StageDie], fractions: Sequence[tuple],
                   on_critical: Sequence[bool]) -> tuple[Stage, ...]:
    """The outcome's stages: each one's chance that a token rolling there goes on, as a
    Fraction of the die's face counts, with the rule in words; a stage passed on a failed
    roll is named by what passes it (:func:`passing_name`)."""
    out = []
    for i, (st, die) in enumerate(zip(stages, dice)):
        pf, ps, pc = fractions[i]
        p = pf if st.passes_on == "fail" else ps + pc
        following = stages[i + 1].name if i + 1 < len(stages) else None
        scalar = dataclasses.replace(die, target=int(np.asarray(die.target).ravel()[0]),
                                     modifier=int(np.asarray(die.modifier).ravel()[0]),
                                     critical_on=bool(np.asarray(die.critical_on).ravel()[0]))
        words = stage_words(st, scalar, following, on_critical[i])
        out.append(Stage(passing_name(st), p, f"{words}: goes on {faces_text(p, st.die)}", faces=st.die))
    return tuple(out)


def said(stages: tuple[Stage, ...], rule_stages: Sequence[RuleStage], env: Mapping[str, Any]) -> tuple[Stage, ...]:
    """The outcome's ``stages`` at the scalar stats ``env``, each stage's ``says`` (what its roll is
    made against, in the file's words: :mod:`workbench.rules.says`) before the engine's words."""
    if not any(st.says for st in rule_stages):
        return stages
    return tuple(dataclasses.replace(s, detail=f"{st.says.text(env, f'stages[{i}].says')} {s.detail}")
                 if st.says else s for i, (s, st) in enumerate(zip(stages, rule_stages)))


def save_stage(removal: Removal, env: Mapping[str, Any], unit: Mapping[str, np.ndarray] | None,
               cap: int) -> tuple[tuple[Stage, ...], bool]:
    """The stage a model-by-model removal adds after the file's stages, and whether the blows vary.

    Where every blow (a final success) is saved with one chance (no tough model, and the models
    in front all fresh, all wounded, or saving alike: ``cap`` is the most models the blows can
    remove) the save is one more stage: "heroic save failed", its ``save_says`` then what the roll
    needs, passed on a failed save; none where no roll saves. Where a blow's effect depends on the
    blows before it there is no such stage, and ``True`` says so: the product of the stages is then
    the chance of a blow, not of a removal. ``unit``: :func:`workbench.rules.wounds.unit` of one cell
    (None: no model-by-model removal)."""
    if unit is None:
        return (), False
    k0 = int(unit["k0"][0])
    wounded = k0 > 0 and k0 >= cap           # every blow lands on a model already wounded
    if not wounded and (bool(unit["tough"][0]) or not (k0 == 0 or unit["s0"][0] == unit["s1"][0])):
        return (), True
    if removal.save is None or removal.save_die is None:
        return (), False
    at = dict(env, wounded=np.asarray(int(wounded)))
    need, sides = int(removal.save.scalar(at, "removal.save")), removal.save_die
    saved = Fraction(min(max(sides - need + 1, 0), sides), sides)
    if not saved:
        return (), False
    said_ = removal.save_says.text(at, "removal.save_says") + " " if removal.save_says else ""
    dX = f"d{sides}"
    words = f"{said_}{need_text(need, sides, True, dX, f'any roll of a {dX} saves')}: goes on {faces_text(1 - saved, sides)}"
    return (Stage(f"{removal.save_name} failed", 1 - saved, words, faces=sides),), False
