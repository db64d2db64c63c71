"""A built-in system's own rule files, loaded like a designer's: ``rules/<key>.toml`` (a system of one
file) or the folder ``rules/<key>/`` (one file per mode), keyed as the built-in, so the registry lists none
of them as a system of its own.

A built-in's stat-level function checks its arguments as the file states its stats (:func:`checked`),
resolves through the file's engine (:func:`resolve`; a table: :func:`grid_table`) and turns the answer into
the function's own (:func:`outcome`: its system key and function name, inputs, effect names, notes and pmf
width). Its description is its files' (:func:`describe`), with only what the built-in's Python adds.
:func:`listed` and :func:`keyed` check a list argument's tables (a volley's units or weapons),
:func:`one_roll` makes the Outcome of one roll, a test or a distance.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from .. import engine, pipeline
from .. import validate as v
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..resources import data_dir

__all__ = ["system", "load", "page", "describe", "own_controls", "width", "outcome", "flat_grid", "fit", "checked",
           "resolve", "grid_table", "listed", "keyed", "one_roll"]


@functools.cache
def system(key: str):
    """What the built-in ``key`` ships, loaded as the registry loads a designer's: its folder
    ``rules/<key>/`` (a :class:`~workbench.rules.RuleFolder`) or its file ``rules/<key>.toml``."""
    from .. import rules
    folder = data_dir("rules") / key
    rs = rules.load_system(folder if folder.is_dir() else folder.with_suffix(".toml"))
    if rs.key != key:
        raise ValueError(f"{rs.path}: system.key: expected {key!r}, got {rs.key!r}")
    return rs


def load(key: str, part: str | None = None):
    """The :class:`~workbench.rules.RuleSystem` of the built-in ``key``'s file, or of one ``part`` of
    its folder (``rules/<key>/<part>.toml``; without ``part`` the folder's first). A part may be a
    file of a named mechanism, The Forgotten's close combat: a
    :class:`~workbench.rules.mechanism_system.MechanismSystem`."""
    rs = system(key)
    if getattr(rs, "parts", None) is not None:  # a RuleFolder: its parts by name
        return rs.part(part if part is not None else rs.functions[0])
    if part is not None:
        raise ValueError(f"{rs.path}: part: expected a part of a rule folder, got {part!r} (a system of one file)")
    return rs


def page(key: str, name: str):
    """The :class:`~workbench.rules.mechanism_system.MechanismPage` ``name`` of the built-in ``key``'s folder
    (``rules/changes/turn.toml``: the Changes turn page)."""
    pages = getattr(system(key), "pages", {})
    if name not in pages:
        raise ValueError(f"{system(key).path}: pages: expected a page {name!r}, got {', '.join(pages) or 'none'}")
    return pages[name]


#: built-in key -> its description, kept by :func:`describe` for :func:`terms`
_DESCRIBED: dict[str, Any] = {}


def terms(system: str, function: str) -> dict[str, Any]:
    """What an Outcome of the built-in ``system``'s ``function`` says of itself, as its description has it
    (:meth:`~workbench.systems.description.SystemDescription.outcome_terms`): every outcome a built-in
    returns carries its words, as the engine's outcomes carry their file's."""
    return _DESCRIBED[system].outcome_terms(function)


def describe(key: str, module: Any, *, title: str, colour: str, names: Mapping[str, str], seed: str,
             modes: Callable[[tuple], Sequence[Any]] | None = None,
             effects: Mapping[str, str] | None = None, effect_words: Mapping[str, str] | None = None,
             profiles: Any = None):
    """The built-in ``key``'s description, made from its own file or folder as a designer's is
    (:func:`~workbench.systems.description.describe_rules`, ``describe_folder``), with what only its
    Python knows (docs/rulefiles.md, "How the workbench shows a system"): its ``title`` and ``colour``
    (what tells it from a copy of its files); ``module``, whose functions the modes call; ``names``, its
    functions' effect names -> the file's; ``modes(the files' modes)``, when its modes differ from the
    files'; the ``effects`` and ``effect_words`` of its hand-written functions; its ``profiles``; and
    the ``seed`` post it implements."""
    from .description import describe_folder, describe_rules
    rs = system(key)
    own = describe_folder(rs, colour) if getattr(rs, "parts", None) is not None else describe_rules(rs, colour)
    own_modes = own.modes
    if len(own_modes) == 1 and own_modes[0].function == "attack":  # a system of one file: its mode is shooting
        own_modes = (attrs.evolve(own_modes[0], key="shooting", function="shooting", title="Shooting"),)
    file_names = {f: b for b, f in names.items()}
    kinds = {b: own.effect_kind(f) for b, f in names.items()}
    words = {file_names.get(f, f): w for f, w in own.effect_words.items()}
    # its stat-level functions: those of its module's names that take ``method``
    functions = tuple(name for name in module.__all__ if callable(fn := getattr(module, name))
                      and "method" in inspect.signature(fn).parameters)
    described = _DESCRIBED[key] = attrs.evolve(
        own, title=title, module=module, functions=functions, modes=tuple(modes(own_modes)) if modes else own_modes,
        effects={**{b: k for b, k in kinds.items() if k != "expected"}, **(effects or {})},
        effect_words={**words, **(effect_words or {})}, profiles=profiles, seed=seed, path=None)
    return described


def own_controls(own: Mapping[str, Any], start: Mapping[str, Any] | None = None) -> Callable[[tuple], tuple]:
    """``describe``'s ``modes`` for a built-in whose functions take some arguments otherwise than
    its files state them: in each of the files' modes, the control of the file's stat ``name``
    replaced by ``own[name]`` (in its place; None: the function has no such argument, and the
    control goes), and the controls named in ``start`` starting there."""

    def modes(files: tuple) -> tuple:
        return tuple(attrs.evolve(m, controls=tuple(c for c in (
            own.get(c.name, dataclasses.replace(c, default=start[c.name]) if start and c.name in start else c)
            for c in m.controls) if c is not None)) for m in files)
    return modes


def fit(pmf: np.ndarray, width: int) -> np.ndarray:
    """``pmf`` cut (or padded with zeros) to ``width`` counts along its last axis."""
    return engine.pad(np.asarray(pmf, dtype=float)[..., :width], width)


def width(shots: Any, models: Any) -> int:
    """Counts of models removed a pmf runs over: up to the most shots, and the unit size when given."""
    most = int(np.max(shots))
    return (most if models is None else min(most, int(np.max(models)))) + 1


def outcome(o: Outcome, *, system: str, function: str, inputs: Mapping[str, Any], effects: Mapping[str, str],
            width: int, attacks: int | None, notes: Sequence[str]) -> Outcome:
    """The engine's outcome ``o`` (its stages too) as the built-in function's: ``effects`` maps the
    function's effect names to the file's."""
    return o.replace(system=system, function=function, inputs=dict(inputs), pmf=fit(o.pmf, width),
                     pmf_stderr=None if o.pmf_stderr is None else fit(o.pmf_stderr, width),
                     effects={b: o.effects[f] for b, f in effects.items()},
                     effects_stderr={b: o.effects_stderr[f] for b, f in effects.items() if f in o.effects_stderr},
                     attacks=attacks, notes=tuple(notes), per_attack_mean=None, per_attack_any=None,
                     success_label=None, **terms(system, function))


def flat_grid(values: Mapping[str, Any]) -> tuple[tuple[int, ...], dict[str, Any]]:
    """(the broadcast shape, every value as a 1-D array of that many cells; None stays None)."""
    given = {k: x for k, x in values.items() if x is not None}
    shape = np.broadcast_shapes(*(np.shape(x) for x in given.values()))
    flat = {k: (None if x is None else np.broadcast_to(np.asarray(x), shape).reshape(-1))
            for k, x in values.items()}
    return shape, flat


def checked(rule_system: Any, given: Mapping[str, Any], names: Sequence[str], arrays: bool = False, *,
            optional: Container[str] | None = None, where: str = "", whole: Callable | None = None,
            maybe: Callable | None = None) -> dict:
    """The arguments ``names`` of ``given``, in that order, each checked as ``rule_system`` states
    its stat: true or false, one of its options, or a whole number in its range (``whole``, by
    default :func:`~workbench.validate.integer`, or ``integers`` with ``arrays``), None too when
    the stat is optional (``maybe``; ``optional``: the names that are, in place of the file's
    word). Each message names ``where`` + the argument (a volley's ``"weapons[1]."``)."""
    integer, optional_integer = v.integer_checks(arrays)
    out = {}
    for name in names:
        stat, value, field = rule_system.stat(name), given[name], where + name
        if stat.kind == "bool":
            out[name] = v.boolean(field, value)
        elif stat.kind == "choice":
            out[name] = v.choice(field, value, [o for o, _ in stat.options])
        elif stat.optional if optional is None else name in optional:
            out[name] = (maybe or optional_integer)(field, value, stat.min, stat.max)
        else:
            out[name] = (whole or integer)(field, value, stat.min, stat.max)
    return out


def resolve(run: Callable[..., Outcome], stats: Mapping[str, Any], method: str, samples: int, rng: Any,
            *args: Any) -> tuple[Outcome, dict]:
    """``run(*args, **stats)``, exact or sampled (``samples`` draws from ``rng``), and the inputs its
    Outcome records: the stats, the method and, when sampled, the samples."""
    if method == "exact":
        return run(*args, **stats), dict(stats, method=method)
    return (run(*args, **stats, method=method, samples=samples, seed=rng),
            dict(stats, method=method, samples=samples))


def grid_table(rule_system: Any, stats: Mapping[str, Any], grid: Sequence[str], shots: Any,
               effects: Mapping[str, str], width: int, name: str = "shots") -> dict:
    """The vectorised table of ``rule_system`` over the stats of ``grid`` (broadcast together; the others
    one value for the whole table), refused past the table budget at ``shots`` dice: the function's
    ``{"pmf": array S + (width,), "effects": {name: array S}}`` (``effects``: its names -> the file's)."""
    shape, flat = flat_grid({k: stats[k] for k in grid if k in stats})
    v.table_size(shape, int(np.max(shots)) + 1, name)
    out = rule_system.attack_table(**dict(stats, **flat))
    return {"pmf": fit(out["pmf"], width).reshape(shape + (width,)),
            "effects": {b: np.asarray(out["effects"][f], dtype=float).reshape(shape) for b, f in effects.items()}}


def listed(field: str, value: Any, expected: str) -> Sequence:
    """``value``, a non-empty list (not a text, not a table) of ``expected``."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence) or not value:
        raise InputError(field, expected, value)
    return value


def keyed(where: str, table: Any, keys: Sequence[str], expected: str, required: Mapping[str, str], *,
          any_case: bool = False) -> Mapping:
    """``table``, one entry of a list argument (``where``: "attackers[0]"), checked: a mapping whose
    every key is one of ``keys`` (a misspelt key gets the nearest as a hint, ``any_case``: a key in
    other capitals first) holding each ``required`` key (key -> what it holds)."""
    if not isinstance(table, Mapping):
        raise InputError(where, expected, table)
    for key in table:
        if key not in keys:
            close = [k for k in keys if any_case and isinstance(key, str) and k == key.lower()]
            close = close or (difflib.get_close_matches(key, keys, n=1) if isinstance(key, str) else [])
            raise InputError(f"{where} key", "one of " + ", ".join(keys), key,
                             f"did you mean {close[0]!r}?" if close else None)
    for key, what in required.items():
        if key not in table:
            raise InputError(f"{where}.{key}", f"{what} (a required key)", "missing")
    return table


def one_roll(system: str, function: str, inputs: Mapping[str, Any], stages: Sequence[Stage], method: str,
             samples: int, pmf: np.ndarray, effects: Mapping[str, float], roll: Callable[[int], Mapping],
             dice: int = 1, record_samples: bool = True, **fields: Any) -> Outcome:
    """The Outcome of one roll over ``len(pmf)`` results: exact, ``pmf`` and ``effects``; sampled,
    ``roll(n)`` -> the results of n rolls of ``dice`` dice under "removed", and each effect's values,
    the inputs with the samples when ``record_samples`` (``fields``: attacks, notes, label)."""
    fields.update(terms(system, function))
    if method == "exact":
        return Outcome(system, function, inputs, pmf, tuple(stages), effects, **fields)
    tally = pipeline.tally_sampled(samples, dice, roll, len(pmf))
    inputs = dict(inputs, samples=samples) if record_samples else inputs
    return pipeline.tally_outcome(system, function, inputs, tally, stages, **fields)
