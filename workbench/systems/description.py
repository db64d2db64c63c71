"""One description per rule system: every fact a consumer needs, in one record.

A :class:`SystemDescription` holds what the dashboards, the compare page, the diagnostics, the
profiles, the forum posts and the command line know about a system (docs/architecture.md, step 4).
A rule file gets its description from :func:`describe_rules`, a rule folder from
:func:`describe_folder`, a built-in from its own files (:func:`workbench.systems.ownfile.describe`);
the registry (:mod:`workbench.systems`) hands them out by key. Every record is frozen and checks its
fields on creation: a bad field raises :class:`~workbench.errors.InputError` naming the record's
field, what is allowed and the value given. The records it is made of (modes, stats, steps, profile
fields) are in :mod:`workbench.systems.records` and are importable from here as well.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

import attrs

from ..controls import Control, dropdown, optional_slider, slider, toggle
from ..errors import InputError
from ..outcome import EFFECT_KINDS
from .records import (CONCEPT_NAMES, MISSING, OWNERS, STYLES, Mode, ProfileField, Profiles, Rung, Sides, StatInfo,
                      Step, _as_tuple, _fail, _frozen_map, _optional_map, _text, _tuple_of)

__all__ = ["Mode", "Sides", "STYLES", "StatInfo", "Rung", "Step", "ProfileField", "Profiles", "SystemDescription",
           "BrokenSystem", "describe_rules", "describe_folder", "stat_control", "EFFECT_KINDS", "CONCEPT_NAMES", "OWNERS", "MISSING"]


# -- the description ------------------------------------------------------------------
def _is_key(record, attribute, value) -> None:
    if not (isinstance(value, str) and value[:1].isalpha() and value.replace("_", "a").isalnum()
            and value == value.lower()):
        _fail(record, attribute, "a key of lower-case letters, digits and _ starting with a letter", value)


def _die(record, attribute, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 1000:
        _fail(record, attribute, "a whole number from 2 to 1000", value)


def _colour(record, attribute, value) -> None:
    if not (isinstance(value, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", value)):
        _fail(record, attribute, "a colour written #rrggbb", value)


@attrs.frozen
class SystemDescription:
    """Everything the workbench knows about one rule system (see the module docstring).

    * ``key``, ``name``, ``die`` (faces of its main die), ``seed`` (the forum
      post it implements; None for a rule file), ``path`` (a rule file's path);
    * ``module``: the object holding its stat-level functions (a system module
      or a loaded rule file); ``functions``: their names;
    * ``title``, ``blurb``: the landing page's words; ``colour``: its colour
      on shared plots;
    * ``modes``: the dashboard's modes with their controls;
    * ``effects``: side-effect name -> "probability" | "expected" (an effect
      not listed is an expected count); ``effect_words``: side-effect name ->
      how a playtester reads it on a dashboard ("the unit takes shock"; an
      effect not listed reads as its name in words);
    * ``stats``: the diagnostics' stats (:class:`StatInfo`);
      ``seed_matchup``: the seed profiles' matchup the diagnostics start
      from; ``granularity_grid`` and ``equivalence_search``: the grids those
      searches sweep (None: the system is left out of them);
    * ``concepts``: compare-page concept -> :class:`Step` (a concept a
      system lacks leaves it unmoved);
    * ``profiles``: its unit profiles (:class:`Profiles`; None: no profiles).

    Attribute access falls through to the stat-level functions and ``TABLES``
    of ``module``: ``systems.get("changes").shooting(bs=5, ...)``.
    """

    key: str = attrs.field(validator=_is_key)
    name: str = attrs.field(validator=_text)
    module: Any = attrs.field()
    die: int = attrs.field(validator=_die)
    title: str = attrs.field(validator=_text)
    blurb: str = attrs.field(validator=_text)
    colour: str = attrs.field(validator=_colour)
    modes: tuple[Mode, ...] = attrs.field(converter=_as_tuple, validator=_tuple_of(Mode, "Modes"))
    effects: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    effect_words: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_map)
    stats: tuple[StatInfo, ...] = attrs.field(default=(), converter=_as_tuple,
                                              validator=_tuple_of(StatInfo, "StatInfos"))
    seed_matchup: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_map)
    granularity_grid: Mapping[str, Any] | None = attrs.field(default=None, converter=_optional_map)
    equivalence_search: Mapping[str, Any] | None = attrs.field(default=None, converter=_optional_map)
    concepts: Mapping[str, Step] = attrs.field(factory=dict, converter=_frozen_map)
    profiles: Profiles | None = attrs.field(default=None)
    seed: str | None = None
    path: Path | None = None
    functions: tuple[str, ...] = attrs.field(kw_only=True)

    @modes.validator
    def _some_modes(self, attribute, value) -> None:
        if not value:
            _fail(self, attribute, "at least one dashboard mode", value)
        for m in value:
            if m.function not in self.functions:
                _fail(self, attribute, "modes of the stat-level functions " + ", ".join(self.functions),
                      m.function)

    @effects.validator
    def _effect_kinds(self, attribute, value) -> None:
        for name, kind in value.items():
            if kind not in EFFECT_KINDS:
                _fail(self, attribute, f"{name!r} -> one of " + ", ".join(map(repr, EFFECT_KINDS)), kind)

    @effect_words.validator
    def _effect_words(self, attribute, value) -> None:
        for name, words in value.items():
            if not isinstance(name, str) or not isinstance(words, str) or not words.strip():
                _fail(self, attribute, "side-effect name -> the words a playtester reads", (name, words))

    @concepts.validator
    def _concepts(self, attribute, value) -> None:
        for name, step in value.items():
            if name not in CONCEPT_NAMES or not isinstance(step, Step):
                _fail(self, attribute, "concept -> Step, the concepts being " + ", ".join(CONCEPT_NAMES),
                      (name, step))

    @profiles.validator
    def _profiles(self, attribute, value) -> None:
        if value is not None and not isinstance(value, Profiles):
            _fail(self, attribute, "a Profiles record or None", value)

    def __attrs_post_init__(self) -> None:
        self._check_names()

    def outcome_terms(self, function: str) -> dict[str, Any]:
        """What an :class:`~workbench.outcome.Outcome` of ``function`` says of itself, as this
        description has it: the system's name, which side effects are probabilities, how each
        reads, and the word for one attack ("test" for a function no mode shows)."""
        trial = next((m.trial for m in self.modes if m.function == function), "test")
        return dict(system_title=self.name, effect_kinds=self.effects, effect_labels=self.effect_words, trial=trial)

    def _check_names(self) -> None:
        """Every stat the diagnostics, grids and concepts name is an argument of the first mode's function."""
        accepted = self.arguments(self.modes[0].function)
        named = [("stats", s.name) for s in self.stats]
        for field in ("seed_matchup", "granularity_grid", "equivalence_search"):
            named += [(field, k) for k in (getattr(self, field) or {})]
        for concept, step in self.concepts.items():
            names = [k for r in step.ladder for k, _ in r.settings] if step.ladder else [step.stat]
            named += [(f"concepts[{concept!r}]", k) for k in names]
        for field, name in named:
            if name not in accepted:
                raise InputError(f"{type(self).__name__}.{field}", f"arguments of {self.modes[0].function}: "
                                 + ", ".join(k for k in accepted if k not in ("method", "samples", "seed")), name)

    # -- reading -----------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        # only reached for names the record lacks: the stat-level functions and TABLES
        if name == "TABLES" or name in object.__getattribute__(self, "functions"):
            return getattr(object.__getattribute__(self, "module"), name)
        raise AttributeError(f"{type(self).__name__} of {object.__getattribute__(self, 'key')!r} "
                             f"has no attribute {name!r}")

    @property
    def tables(self) -> Mapping[str, Callable]:
        """Function name -> its vectorised twin (docs/architecture.md, ``TABLES``)."""
        return MappingProxyType(dict(getattr(self.module, "TABLES", {}) or {}))

    def function(self, name: str) -> Callable:
        """A stat-level function by name (an unknown name is an InputError listing them)."""
        if name not in self.functions:
            raise InputError("function", f"one of {', '.join(self.functions)} (functions of {self.key})", name)
        return getattr(self.module, name)

    def mode(self, key: str) -> Mode:
        for m in self.modes:
            if m.key == key:
                return m
        raise InputError("mode", "one of " + ", ".join(m.key for m in self.modes), key)

    def stat(self, name: str) -> StatInfo:
        for s in self.stats:
            if s.name == name:
                return s
        raise InputError("stat", "one of " + ", ".join(repr(s.name) for s in self.stats) + f" (stats of {self.key})",
                         name)

    def effect_kind(self, name: str) -> str:
        return self.effects.get(name, "expected")

    def controls(self, function: str) -> tuple[Control, ...]:
        """The controls of the first mode of ``function`` (empty when it has no mode)."""
        for m in self.modes:
            if m.function == function:
                return m.controls
        return ()

    def arguments(self, function: str) -> dict[str, Any]:
        """Keyword name -> default (``inspect.Parameter.empty`` when required) of one
        stat-level function. A function taking ``**stats`` (a rule file's
        ``attack``) lists its controls' names and defaults instead."""
        fn = self.function(function)
        params = inspect.signature(fn).parameters
        out = {k: p.default for k, p in params.items() if p.kind is not p.VAR_KEYWORD}
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            for c in self.controls(function):
                out.setdefault(c.name, c.default)
        return out


@attrs.frozen
class BrokenSystem:
    """A rule file that did not load: its path, the loader's message and,
    when the file got that far, its key."""

    path: Path
    message: str = attrs.field(validator=_text)
    key: str | None = None


# -- a rule file's description -------------------------------------------------------------
def stat_control(stat: Any, view: Any) -> Control:
    """A stat's control: its kind, label and help, where it starts (the file's ``[view.start]``,
    else the stat's default), its slider's range (``[view.sliders]``, else the stat's ``min``..``max``)
    and its options' words (``[view.words]``)."""
    label, default = stat.label or stat.name, view.start.get(stat.name, stat.default)
    if stat.kind == "bool":
        return toggle(stat.name, bool(default), label, stat.help or f"{label}: on or off")
    if stat.kind == "choice":
        names = tuple(name for name, _ in stat.options)
        return dropdown(stat.name, default, names, label, stat.help or f"{label}: one of " + ", ".join(names),
                        words=dict(view.words.get(stat.name, ())))
    lo = stat.min if stat.min is not None else min(0, default)
    hi = stat.max if stat.max is not None else max(default + 10, 2 * default)
    lo, hi = view.sliders.get(stat.name, (lo, hi))
    if getattr(stat, "optional", False):
        return optional_slider(stat.name, default, lo, hi, label, stat.help or f"{label}: a whole number from "
                               f"{lo} to {hi}, or none at the leftmost notch")
    return slider(stat.name, default, lo, hi, label, stat.help or f"{label}: a whole number from {lo} to {hi}",
                  view.steps.get(stat.name, 1))


def describe_rules(rule_system: Any, colour: str) -> SystemDescription:
    """The description of a loaded rule file (a ``RuleSystem``, see ``workbench.rules``): one mode,
    "attack", with a control per stat, and what the file's ``[view]`` says (docs/rulefiles.md, "How
    the workbench shows a system"). Where it says nothing: the title is the name, the blurb the first
    note; every whole-number stat steps through its range in the diagnostics, no side said to be
    helped; the seed matchup is every control at its start; the grids are read from the stats
    (:func:`workbench.systems.grids.rule_grids`). A rule file has no profiles."""
    from ..rules.view import View, effect_labels
    from .grids import rule_grids

    view = getattr(rule_system, "view", None) or View()
    granularity, search = rule_grids(rule_system)
    by_name = {s.name: s for s in rule_system.stats}
    shown = tuple(by_name[n] for n in view.controls) if view.controls else rule_system.stats
    controls = tuple(stat_control(s, view) for s in shown)
    stats = tuple(StatInfo(name, side, -1 if better == "lower" else +1, values, doc)
                  for name, side, better, values, doc in view.diagnostics) or tuple(
        StatInfo(s.name, "either", +1, tuple(range(int(c.bounds[0]), int(c.bounds[1]) + 1)),
                 (s.help or (s.label or s.name)) + "; the rule file says not which side a higher value helps")
        for s, c in zip(shown, controls) if s.kind == "int" and c.bounds[1] > c.bounds[0])
    notes = tuple(getattr(rule_system, "notes", ()) or ())
    chances = tuple(getattr(rule_system, "chances", ()) or ())
    path = Path(rule_system.path) if getattr(rule_system, "path", None) else None
    blurb = notes[0] if notes else f"A designer's rule file ({path.name if path else rule_system.key})."
    return SystemDescription(
        key=rule_system.key, name=rule_system.name, module=rule_system, die=rule_system.die,
        title=view.title or rule_system.name, blurb=view.blurb or blurb, colour=view.colour or colour,
        modes=(Mode("attack", "attack", "Attack", controls, trial=view.trial,
                    sides=None if view.matchup is None else Sides(**view.matchup)),),
        effects={"criticals": "expected", "wasted_damage": "expected", **{c.name: "probability" for c in chances}},
        effect_words=effect_labels(chances, view),
        stats=stats, seed_matchup={c.name: c.default for c in controls} if view.seed is None else view.seed,
        granularity_grid=granularity if view.granularity is None else view.granularity,
        equivalence_search=search if view.equivalence is None else view.equivalence,
        concepts={k: Step(stat, label, sign, style, tuple(Rung(settings, text) for settings, text in ladder))
                  for k, (stat, label, sign, style, ladder) in view.concepts.items()},
        path=path, functions=("attack",))


def describe_folder(folder: Any, colour: str) -> SystemDescription:
    """The description of the loaded rule folder ``folder``, one system of several rule files, one
    dashboard mode per file, made of its parts' (:func:`describe_rules` of each file): a mode per
    part, named by the part's file (``melee.toml``: the mode and function ``melee``, titled
    "Melee"), with that file's controls; the side effects of every part with their words; and,
    from the first part, the landing page's title, blurb and colour, the diagnostics' stats, the
    seed matchup, the granularity and equivalence grids and the compare page's concepts (a
    system's diagnostics and its place on the compare page read its first mode)."""
    parts = {name: describe_rules(part, colour) for name, part in folder.parts.items()}
    first = parts[folder.functions[0]]
    modes = tuple(attrs.evolve(d.modes[0], key=name, function=name,
                               title=name.replace("_", " ").strip().capitalize()) for name, d in parts.items())
    effects = {k: x for d in parts.values() for k, x in d.effects.items()}
    words = {k: x for d in parts.values() for k, x in d.effect_words.items()}
    return attrs.evolve(first, key=folder.key, name=folder.name, module=folder, die=folder.die,
                        title=first.title if first.title != first.name else folder.name, modes=modes,
                        effects=effects, effect_words=words, path=folder.path, functions=folder.functions)
