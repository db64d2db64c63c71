"""Variants of a rule system side by side: what one rule change does, over every stat.

A :class:`Variant` is a system plus settings: a registered system (a built-in
or a rule file, :func:`workbench.systems.get`) with some switches or stats
fixed (40k Changes with ``heavy_shot="flat_4"``), or a rule file read from
its path. It is an immutable value: :func:`variant` (or
:meth:`Variant.parse`, for ``"changes:heavy_shot=flat_4"`` as a command line
and a link write it) checks the system, the names and the values, and an
unknown one is an :class:`~workbench.errors.InputError` naming it.

:func:`diff` sets two variants side by side over a grid of stats (any of
the stats both take, the rest at a matchup): per cell, the expected models
removed and the chance of at least one, before (``a``) and after (``b``),
and the signed change ``after - before``. Each variant is one vectorised
sweep (:func:`workbench.compare.evaluate`, the systems' ``TABLES``), so a
12 x 12 grid costs two sweeps.

:func:`movers` finds the profile matchups (the shipped and the designer's
unit profiles, :mod:`workbench.profiles`, in each situation a dashboard
offers) that the change moves most; :func:`verdict` says what the change
does in one line; :func:`diff_figure` draws both changes as heatmaps on a
diverging scale centred on zero; :func:`to_markdown`, :func:`to_bbcode` and
:func:`figure_png` make a forum post of a change.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from . import systems
from .controls import RESERVED, Control
from .errors import InputError, UnknownArgumentError
from .grid import evaluate, scalar_text, values_of, values_text
from .systems.description import SystemDescription

__all__ = ["Variant", "variant", "diff", "movers", "verdict", "diff_figure", "to_markdown", "to_bbcode",
           "figure_png", "heatmap_values", "stat_words", "parse_range", "VALUE_COLUMNS"]

#: the columns :func:`diff` adds after the grid's stats
VALUE_COLUMNS = ("mean_a", "mean_b", "mean_diff", "p_at_least_1_a", "p_at_least_1_b", "p_at_least_1_diff")
#: a change smaller than this is float noise of equal results
NOISE = 1e-12
#: the colour of a loaded rule file (it is on no shared plot)
_FILE_COLOUR = "#8172B3"


# ---------------------------------------------------------------------------
# a variant
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """A system with some of its function's arguments fixed.

    ``description``: the system; ``function``: the stat-level function
    compared (its first dashboard mode's by default); ``settings``: the fixed
    ``(argument, value)`` pairs, sorted; ``label``: how a reader names it
    (default: the system's name and the settings in words).
    """

    description: SystemDescription = field(compare=False, hash=False, repr=False)
    function: str
    settings: tuple[tuple[str, Any], ...] = ()
    label: str = ""
    #: the system's key and, for a rule file read from a path, that path (what equality compares)
    key: str = ""
    path: str = ""

    def __deepcopy__(self, memo: dict) -> "Variant":
        return self  # immutable (pandas deep-copies a DataFrame's attrs, which hold variants)

    @property
    def name(self) -> str:
        """The label, or the system's name with the settings in words."""
        if self.label:
            return self.label
        if not self.settings:
            return self.description.name
        return f"{self.description.name} with " + ", ".join(
            setting_words(self.description, self.function, k, v) for k, v in self.settings)

    @property
    def spec(self) -> str:
        """The variant as the command line and a link write it: ``changes:heavy_shot=flat_4``."""
        head = self.path or self.key
        if not self.settings:
            return head
        controls = _controls(self.description, self.function)
        return head + ":" + ",".join(f"{k}={_format(controls.get(k), v)}" for k, v in self.settings)

    def arguments(self) -> dict[str, Any]:
        """Keyword -> default of the function (``inspect.Parameter.empty`` when required)."""
        return self.description.arguments(self.function)

    def replace(self, label: str | None = None, **settings: Any) -> "Variant":
        """The same system with more (or other) settings (and another label, if given)."""
        return variant(self.description, self.function, label=self.label if label is None else label,
                       path=self.path or None,
                       **{**dict(self.settings), **settings})

    @classmethod
    def parse(cls, text: str, label: str = "") -> "Variant":
        """``"changes"``, ``"changes:heavy_shot=flat_4,action=shot"`` or a rule file's path
        (``"my_rules/kill6.toml:bs=3"``)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("variant", "a system key, optionally with settings: changes:heavy_shot=flat_4",
                             text)
        head, _, rest = text.strip().partition(":")
        if len(head) == 1 and rest[:1] in ("\\", "/"):  # a Windows drive letter, C:\...
            drive, _, rest2 = rest.partition(":")
            head, rest = head + ":" + drive, rest2
        desc = _describe(head)
        function = desc.modes[0].function
        controls = _controls(desc, function)
        settings = {}
        for item in (x for x in rest.split(",") if x.strip()):
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep or not name or not value.strip():
                raise InputError("variant", "settings written name=value, separated by commas "
                                 "(changes:heavy_shot=flat_4,action=shot)", item)
            if name in settings:
                raise InputError(name, "one value per setting", item)
            settings[name] = controls[name].parse(value) if name in controls else scalar_text(value)
        return variant(desc, function, label=label, path=head if _is_path(head) else None, **settings)


def _is_path(text: str) -> bool:
    return text.endswith(".toml") or os.sep in text or "/" in text


def _describe(system: Any) -> SystemDescription:
    """A registered system by key or description, or a rule file by path."""
    if isinstance(system, (str, os.PathLike)) and _is_path(str(system)):
        from . import rules
        from .systems.description import describe_rules
        path = Path(system)
        if not path.is_file():
            raise InputError("variant", "a registered system's key or a rule file that exists", str(system))
        return describe_rules(rules.load(path), _FILE_COLOUR)
    return systems.get(system)


def _controls(desc: SystemDescription, function: str) -> dict[str, Control]:
    out: dict[str, Control] = {}
    for m in desc.modes:
        if m.function == function:
            for c in m.controls:
                out.setdefault(c.name, c)
    return out


def _format(control: Control | None, value: Any) -> str:
    if control is not None:
        return control.format(value)
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def variant(system: Any, function: str | None = None, *, label: str = "", path: str | None = None,
            **settings: Any) -> Variant:
    """A :class:`Variant` of ``system`` (a key, a description or a rule file's path).

    Each setting must be an argument of ``function`` (did-you-mean on a
    typo) and a value its dashboard control can show (one of a switch's
    choices, a stat within its range); ``method``/``samples``/``seed`` are
    not settings.
    """
    desc = _describe(system)
    if path is None and isinstance(system, (str, os.PathLike)) and _is_path(str(system)):
        path = str(system)
    function = desc.modes[0].function if function is None else function
    if function not in desc.functions:
        raise InputError("function", f"one of {', '.join(desc.functions)} (functions of {desc.key})", function)
    if not isinstance(label, str):
        raise InputError("label", "a text naming the variant", label)
    accepted = [k for k in desc.arguments(function) if k not in RESERVED]
    controls = _controls(desc, function)
    checked = {}
    for name, value in settings.items():
        if name not in accepted:
            close = difflib.get_close_matches(name, accepted, n=1)
            raise UnknownArgumentError("setting", f"an argument of {desc.key}.{function}: " + ", ".join(accepted),
                                       name, f"did you mean {close[0]!r}?" if close else None)
        checked[name] = controls[name].check(value) if name in controls else value
    return Variant(description=desc, function=function, settings=tuple(sorted(checked.items())),
                   label=label.strip(), key=desc.key, path=str(path) if path else "")


def _as_variant(x: Any, role: str) -> Variant:
    if isinstance(x, Variant):
        return x
    if isinstance(x, str):
        return Variant.parse(x)
    if isinstance(x, SystemDescription):
        return variant(x)
    raise InputError(role, "a Variant, or a system key with settings such as 'changes:heavy_shot=flat_4'",
                     type(x).__name__)


# ---------------------------------------------------------------------------
# words
# ---------------------------------------------------------------------------
def _sides(desc: SystemDescription, function: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for m in desc.modes:
        if m.function == function and m.sides is not None:
            for name, label, style in (*m.sides.firer, *m.sides.weapon, *m.sides.target):
                out.setdefault(name, (label, style))
    return out


def _value_words(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("_", " ")


def stat_words(desc: SystemDescription, function: str, name: str, value: Any) -> str:
    """How one argument's value reads: "BS 6+", "T +2", "10 shots", "action shot"."""
    if isinstance(value, np.generic):
        value = value.item()
    sides = _sides(desc, function)
    if name in sides and isinstance(value, int) and not isinstance(value, bool):
        label, style = sides[name]
        return {"plus": f"{label} {value}+", "mod": f"{label} {value:+d}"}.get(style, f"{label} {value}")
    if name in ("shots", "attacks") and isinstance(value, int):
        return f"{value} {name if value != 1 else name[:-1]}"
    control = _controls(desc, function).get(name)
    label = (control.label if control is not None and control.label else name.replace("_", " "))
    if control is not None and control.kind == "bool":
        return label if value else f"not {label}"
    return f"{label} {_value_words(value)}"


def change_words(a: Variant, b: Variant) -> str:
    """How a reader names the change from ``a`` to ``b``: ``b``'s label when it has one, else the
    settings of ``b`` that differ from ``a`` ("heavy weapon in a SHOT action: flat 4") when both are
    the same system, else ``b``'s name."""
    if b.label or a.key != b.key or a.path != b.path:
        return b.name
    before = dict(a.settings)
    changed = [(k, v) for k, v in b.settings if k not in before or before[k] != v]
    dropped = [k for k in before if k not in dict(b.settings)]
    if not changed and not dropped:
        return b.name
    words = [setting_words(b.description, b.function, k, v) for k, v in changed]
    defaults = b.arguments()
    words += [setting_words(b.description, b.function, k, defaults[k]) for k in dropped]
    return ", ".join(words)


def setting_words(desc: SystemDescription, function: str, name: str, value: Any) -> str:
    """How a variant's setting reads: "heavy weapon in a SHOT action: flat 4"."""
    control = _controls(desc, function).get(name)
    if control is not None and control.kind == "choice":
        return f"{control.label or name.replace('_', ' ')}: {_value_words(value)}"
    return stat_words(desc, function, name, value)


# ---------------------------------------------------------------------------
# the grid
# ---------------------------------------------------------------------------
def parse_range(name: str, text: str) -> list[Any]:
    """``"1..12"`` (both ends included), ``"3,4,5"`` or one value, as the command line writes a grid."""
    values = values_text(name, text)
    return values if isinstance(values, list) else [values]


def _grid_lists(grid: Mapping[str, Any]) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping) or not grid:
        raise InputError("grid", "a dict of one or two stats to their values, e.g. {'bs': range(1, 13), "
                         "'t': range(-2, 5)}", grid)
    if len(grid) > 2:
        raise InputError("grid", "one or two stats (the rest are fixed by the matchup)", ", ".join(grid))
    return {k: values_of(k, v) for k, v in grid.items()}


def _keywords(v: Variant, grid: Mapping[str, list[Any]], matchup: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep keywords of one variant: its seed matchup, the shared matchup, its settings, the grid."""
    accepted = v.arguments()
    fixed = dict(v.settings)
    for k in grid:
        if k in fixed:
            raise InputError("grid", f"stats the variant {v.name!r} does not fix", k,
                             f"{v.name} sets {k} to {fixed[k]!r}; sweep another stat")
    base = {k: val for k, val in v.description.seed_matchup.items() if k in accepted}
    return {**base, **{k: val for k, val in matchup.items() if k in accepted}, **fixed, **grid}


def _common(a: Variant, b: Variant) -> list[str]:
    names_b = set(b.arguments())
    return [k for k in a.arguments() if k in names_b and k not in RESERVED]


def _sweep(v: Variant, keywords: Mapping[str, Any], grid: Mapping[str, list[Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(mean, P(at least 1)) of ``v`` per cell of ``grid``, in the order of ``itertools.product``."""
    cells, pmf, _effects, _path = evaluate(v.description, v.function, progress=False, **keywords)
    mean = pmf @ np.arange(pmf.shape[1])
    p1 = 1.0 - pmf[:, 0]
    keys = list(grid)
    product = _product(grid)
    if all(np.array_equal(cells[k].to_numpy(), product[k]) for k in keys):  # the sweep's own order
        return mean, np.clip(p1, 0.0, 1.0)
    index = pd.MultiIndex.from_frame(cells[keys]) if len(keys) > 1 else pd.Index(cells[keys[0]])
    wanted = (pd.MultiIndex.from_arrays([product[k] for k in keys], names=keys) if len(keys) > 1
              else pd.Index(product[keys[0]], name=keys[0]))
    order = index.get_indexer(wanted)
    return mean[order], np.clip(p1[order], 0.0, 1.0)


def _product(grid: Mapping[str, list[Any]]) -> dict[str, np.ndarray]:
    """Each stat's value per cell, cells in the order of ``itertools.product``."""
    mesh = np.meshgrid(*(np.asarray(v) for v in grid.values()), indexing="ij")
    return {k: m.ravel() for k, m in zip(grid, mesh)}


def diff(a: Any, b: Any, grid: Mapping[str, Any], matchup: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Variant ``b`` against ``a`` over ``grid`` (one or two stats both take -> values).

    Every other argument is at ``matchup`` (given or not, each variant's
    seed matchup fills the rest and each variant's settings stay fixed).
    Returns one row per grid cell (in the order of ``itertools.product``):
    the grid's stats, then :data:`VALUE_COLUMNS`: expected models removed
    before (``mean_a``), after (``mean_b``) and the signed change
    ``mean_diff = mean_b - mean_a``; the same for the chance of at least
    one (``p_at_least_1_*``). A change below 1e-12 is float noise and shown
    as 0. ``attrs``: ``a``, ``b`` (the variants), ``grid``, ``matchup``.
    """
    a, b = _as_variant(a, "a"), _as_variant(b, "b")
    g = _grid_lists(grid)
    matchup = dict(matchup or {})
    common = _common(a, b)
    for k in list(g) + list(matchup):
        if k not in common:
            raise InputError("grid" if k in g else "matchup", f"a stat both variants take: {', '.join(common)}", k)
    for k, val in matchup.items():
        if isinstance(val, (list, tuple, range, np.ndarray)):
            raise InputError(k, "a single value in the matchup (the grid holds the swept stats)", val)
    mean_a, p_a = _sweep(a, _keywords(a, g, matchup), g)
    mean_b, p_b = _sweep(b, _keywords(b, g, matchup), g)
    df = pd.DataFrame(_product(g))
    for name, before, after in (("mean", mean_a, mean_b), ("p_at_least_1", p_a, p_b)):
        change = after - before
        df[f"{name}_a"], df[f"{name}_b"] = before, after
        df[f"{name}_diff"] = np.where(np.abs(change) < NOISE, 0.0, change)
    df.attrs.update(a=a, b=b, grid=g, matchup=matchup)
    return df


# ---------------------------------------------------------------------------
# the movers: profile matchups
# ---------------------------------------------------------------------------
def _situations(v: Variant, fixed: set[str]) -> list[dict[str, Any]]:
    """The situations a dashboard offers, one switch at a time: every other choice of each
    dropdown and each checkbox turned over, the rest at their defaults."""
    out: list[dict[str, Any]] = [{}]
    for c in _controls(v.description, v.function).values():
        if c.name in fixed:
            continue
        if c.kind == "choice":
            out += [{c.name: o} for o in c.options if o != c.default]
        elif c.kind == "bool":
            out.append({c.name: not c.default})
    return out


def _profile_matchups(a: Variant, b: Variant) -> list[tuple[str, str, dict[str, Any]]]:
    """(plain matchup's words, words, keywords) of every profile matchup of the variants' system with profiles, in every situation."""
    from . import profiles
    system = next((v.description for v in (a, b) if v.description.profiles is not None
                   and v.key in profiles.profile_systems()), None)
    if system is None:
        return []
    fixed = set(_own(a, b)) | set(_own(b, a))
    situations = _situations(a, fixed)
    out = []
    units = profiles.list_units(system.key)
    for attacker in units:
        for weapon in attacker.weapons:
            for target in units:
                try:
                    mode, kw = profiles.profile_kwargs(system.key, attacker, weapon, target)
                except InputError:
                    continue
                if system.mode(mode).function != a.function:
                    continue
                base = f"{attacker.name} ({weapon.name}) at {target.name}"
                for s in situations:
                    if any(kw.get(k) == val for k, val in s.items()):
                        continue
                    words = base + "".join(", " + stat_words(a.description, a.function, k, val)
                                           for k, val in s.items())
                    out.append((base, words, {**kw, **s}))
    return out


def _own(v: Variant, other: Variant) -> dict[str, Any]:
    """The settings of ``v`` that make the change: for the same system, those ``other`` does not
    share (a setting both fix is the grid's context, not the profile's: a Boltgun stays light)."""
    if v.key != other.key or v.path != other.path:
        return dict(v.settings)
    theirs = dict(other.settings)
    return {k: val for k, val in v.settings if k not in theirs or theirs[k] != val}


def _one(v: Variant, kwargs: Mapping[str, Any], settings: Mapping[str, Any]):
    accepted = v.arguments()
    fn = v.description.function(v.function)
    return fn(**{**{k: val for k, val in kwargs.items() if k in accepted}, **settings})


def movers(a: Any, b: Any, df: pd.DataFrame | None = None, top: int = 8) -> pd.DataFrame:
    """The matchups the change from ``a`` to ``b`` moves most (by |change of expected removals|).

    The matchups are the unit profiles of the variants' system (shipped and
    the designer's, :func:`workbench.profiles.list_units`): every attacker
    with each of its weapons at every target, as each dashboard situation
    (one switch or choice at a time) has it, with the settings that make the
    change (those the two variants do not share). A system without profiles (a
    rule file) ranks the cells of the grid of ``df`` (a :func:`diff`)
    instead. A matchup one variant refuses (evading against aimed fire) is
    left out. Only matchups that move are listed. Columns: ``matchup``,
    ``mean_a``, ``mean_b``, ``mean_diff``, ``p_at_least_1_diff``.
    """
    from .errors import WorkbenchError
    a, b = _as_variant(a, "a"), _as_variant(b, "b")
    rows = []
    plain: dict[str, tuple[float, float]] = {}
    for base, words, kw in _profile_matchups(a, b):
        try:
            oa, ob = _one(a, kw, _own(a, b)), _one(b, kw, _own(b, a))
        except WorkbenchError:
            continue
        numbers = (round(oa.mean, 9), round(ob.mean, 9))
        if words != base and plain.get(base) == numbers:
            continue  # a situation that changes nothing here: the plain matchup's row says it
        plain.setdefault(base, numbers)
        rows.append(dict(matchup=words, mean_a=oa.mean, mean_b=ob.mean, mean_diff=ob.mean - oa.mean,
                         p_at_least_1_diff=ob.at_least(1) - oa.at_least(1)))
    if not rows and df is not None:
        for rec in df.to_dict("records"):
            words = ", ".join(stat_words(a.description, a.function, k, rec[k]) for k in df.attrs["grid"])
            rows.append(dict(matchup=words, **{k: rec[k] for k in ("mean_a", "mean_b", "mean_diff",
                                                                 "p_at_least_1_diff")}))
    out = pd.DataFrame(rows, columns=["matchup", "mean_a", "mean_b", "mean_diff", "p_at_least_1_diff"])
    out["mean_diff"] = out["mean_diff"].where(out["mean_diff"].abs() >= NOISE, 0.0)
    out = out[out["mean_diff"] != 0]
    out = out.reindex(out["mean_diff"].abs().sort_values(ascending=False, kind="stable").index).head(top)
    return out.reset_index(drop=True)


# ---------------------------------------------------------------------------
# the verdict
# ---------------------------------------------------------------------------
def _cell_words(df: pd.DataFrame, i: int) -> str:
    return _all_cell_words(df, [i])[0]


def _all_cell_words(df: pd.DataFrame, rows: Sequence[int] | None = None) -> list[str]:
    """Each cell's stats in words ("BS 6+, T +2"), each stat's value put in words once."""
    a = df.attrs["a"]
    rows = range(len(df)) if rows is None else rows
    columns = []
    for k, values in df.attrs["grid"].items():
        words = {v: stat_words(a.description, a.function, k, v) for v in values}
        col = df[k].tolist()
        columns.append([words.get(col[i]) or stat_words(a.description, a.function, k, col[i]) for i in rows])
    return [", ".join(parts) for parts in zip(*columns)]


def _context(df: pd.DataFrame) -> str:
    """The fixed count of dice, when the matchup (or the seed matchup) names it: " at 10 shots"."""
    a = df.attrs["a"]
    args = {**a.description.seed_matchup, **df.attrs["matchup"]}
    for k in ("shots", "attacks"):
        if k in args and k not in df.attrs["grid"]:
            return " at " + stat_words(a.description, a.function, k, args[k])
    return ""


def verdict(df: pd.DataFrame) -> str:
    """One line in a designer's words: whom the change helps, by how much at most, whom it hurts.

    "heavy weapon in a SHOT action: flat 4 helps most at BS 9+, T -2, by
    +2.60 models removed at 10 shots (everywhere on the grid), hurts none."
    """
    _check_diff(df)
    a, b = df.attrs["a"], df.attrs["b"]
    d = df["mean_diff"].to_numpy()
    up, down = d > 0, d < 0
    ctx = _context(df)
    if not up.any() and not down.any():
        return f"{change_words(a, b)} changes nothing on this grid{ctx}."
    n = len(d)
    parts = []
    if up.any():
        i = int(np.argmax(d))
        where = "everywhere on the grid" if up.all() else f"at {int(up.sum())} of {n} points of the grid"
        parts.append(f"helps most at {_cell_words(df, i)}, by {d[i]:+.2f} models removed{ctx} ({where})")
    else:
        parts.append("helps none")
    if down.any():
        i = int(np.argmin(d))
        where = "everywhere on the grid" if down.all() else f"at {int(down.sum())} of {n} points"
        parts.append(f"hurts most at {_cell_words(df, i)}, by {d[i]:+.2f} ({where})")
    else:
        parts.append("hurts none")
    return f"{change_words(a, b)} " + ", ".join(parts) + "."


def _check_diff(df: Any) -> None:
    if not isinstance(df, pd.DataFrame) or not set(VALUE_COLUMNS) <= set(df.columns) or "a" not in df.attrs:
        raise InputError("df", "a DataFrame returned by workbench.compare.diff()", type(df).__name__)


# ---------------------------------------------------------------------------
# the heatmaps
# ---------------------------------------------------------------------------
def _axis_words(df: pd.DataFrame, name: str) -> str:
    return _axis_words_of(df.attrs["a"], name)


def _axis_words_of(v: Variant, name: str) -> str:
    """A stat's short name as an axis reads it ("BS", "T"), else its control's label."""
    sides = _sides(v.description, v.function)
    if name in sides:
        return sides[name][0]
    control = _controls(v.description, v.function).get(name)
    return control.label if control is not None and control.label else name.replace("_", " ")


def heatmap_values(df: pd.DataFrame) -> list[dict[str, Any]]:
    """What each of the two heatmaps of :func:`diff_figure` shows: ``z`` (the change, y down and
    x across; percentage points for the chance), ``zmin``/``zmax`` (symmetric about zero),
    ``customdata`` (each cell's stats in words, before, after), ``x`` and ``y`` (the values as
    text). A dashboard redraws by setting these on the traces it has."""
    _check_diff(df)
    keys = list(df.attrs["grid"])
    if len(keys) != 2:
        raise InputError("grid", "two stats for a heatmap", ", ".join(keys))
    xs, ys = (df.attrs["grid"][k] for k in keys)
    shape = (len(xs), len(ys))
    words = np.array(_all_cell_words(df), dtype=object).reshape(shape).T
    out = []
    for name, scale in (("mean", 1.0), ("p_at_least_1", 100.0)):
        z = (df[f"{name}_diff"].to_numpy() * scale).reshape(shape).T
        before = (df[f"{name}_a"].to_numpy() * scale).reshape(shape).T
        after = (df[f"{name}_b"].to_numpy() * scale).reshape(shape).T
        top = float(np.max(np.abs(z))) or 1.0
        out.append(dict(z=z, zmin=-top, zmax=top, customdata=np.stack([words, before, after], axis=-1),
                        x=[str(v) for v in xs], y=[str(v) for v in ys]))
    return out


def diff_figure(df: pd.DataFrame, title: str | None = None):
    """Two heatmaps over the grid's two stats: the change of expected models removed and of the
    chance of at least one (percentage points), each on a red-blue scale centred on zero (blue:
    more removed after the change), the cells' values on hover."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    values = heatmap_values(df)
    x, y = df.attrs["grid"]
    a, b = df.attrs["a"], df.attrs["b"]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.16, subplot_titles=(
        "change of expected models removed", "change of the chance of at least one (points)"))
    for col, (vals, name, unit) in enumerate(zip(values, ("mean", "p_at_least_1"), ("models", "points")), 1):
        fmt = ".2f" if name == "mean" else ".1f"
        fig.add_trace(go.Heatmap(
            **vals, zmid=0, colorscale="RdBu",
            colorbar=dict(x=0.43 if col == 1 else 1.0, len=0.9, title=dict(text=unit)),
            hovertemplate=(f"%{{customdata[0]}}<br>before %{{customdata[1]:{fmt}}}, after %{{customdata[2]:{fmt}}}"
                           f"<br>change %{{z:+{fmt}}} {unit}<extra></extra>"),
            name=name), row=1, col=col)
        fig.update_xaxes(title_text=_axis_words(df, x), type="category", row=1, col=col)
        fig.update_yaxes(title_text=_axis_words(df, y), type="category", row=1, col=col)
    fig.update_layout(title=dict(text=title or f"{b.name} against {a.name}"), template="plotly_white",
                      margin=dict(l=60, r=20, t=80, b=50))
    return fig


def figure_png(df: pd.DataFrame, width: int = 1000, height: int = 480) -> bytes:
    """The heatmaps of :func:`diff_figure` as PNG (kaleido, :mod:`workbench.export`)."""
    from .export import figure_bytes
    return figure_bytes(diff_figure(df), "png", width=width, height=height)


# ---------------------------------------------------------------------------
# a forum post of a change
# ---------------------------------------------------------------------------
def _mover_rows(table: pd.DataFrame) -> list[list[str]]:
    return [[r.matchup, f"{r.mean_a:.2f}", f"{r.mean_b:.2f}", f"{r.mean_diff:+.2f}",
             f"{100 * r.p_at_least_1_diff:+.1f} points"] for r in table.itertuples()]


_MOVER_HEAD = ("matchup", "before", "after", "change", "chance of at least one")


def _post_parts(df: pd.DataFrame, table: pd.DataFrame | None):
    _check_diff(df)
    a, b = df.attrs["a"], df.attrs["b"]
    table = movers(a, b, df) if table is None else table
    grid = df.attrs["grid"]
    span = "; ".join(f"{_axis_words(df, k)} from {v[0]} to {v[-1]}" if len(v) > 1 else f"{_axis_words(df, k)} {v[0]}"
                     for k, v in grid.items())
    title = f"Before and after: {change_words(a, b)}"
    lines = [f"Before: {a.name}.", f"After: {b.name}.", f"Over {span}: {verdict(df)}"]
    return title, lines, table


def to_markdown(df: pd.DataFrame, table: pd.DataFrame | None = None) -> str:
    """A Markdown post of a change: the two variants named, the verdict, the table of movers
    (expected models removed before, after and the change) and where the heatmap goes."""
    from .teach.tables import md_table
    title, lines, table = _post_parts(df, table)
    out = [f"**{title}**", ""] + [f"- {x}" for x in lines] + [""]
    if len(table):
        out += ["The matchups that move most (expected models removed):", ""]
        out += md_table(_MOVER_HEAD, _mover_rows(table), left=1)
    else:
        out += ["No matchup of the unit profiles moves."]
    return "\n".join(out) + "\n"


def to_bbcode(df: pd.DataFrame, table: pd.DataFrame | None = None) -> str:
    """The same post in the BBCode of a stock phpBB board (:data:`workbench.teach.PHPBB_TAGS`):
    the table of movers as aligned text in a [code] block."""
    from .teach.tables import bb_block
    title, lines, table = _post_parts(df, table)
    out = [f"[b]{title}[/b]", "[list]"] + [f"[*]{x}" for x in lines] + ["[/list]"]
    if len(table):
        out += ["The matchups that move most (expected models removed):"]
        out += bb_block(_MOVER_HEAD, _mover_rows(table), False, left=1)
    else:
        out += ["No matchup of the unit profiles moves."]
    return "\n".join(out) + "\n"
