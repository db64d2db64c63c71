"""Declarative control specs: one list per system and function.

A dashboard is built from these specs by one generic class
(:class:`workbench.ui.dashboard.SystemDashboard`); a spec says which widget a
stat-level argument gets, its range and its default. Argument names are the
stat-level names of the system modules (the contract of issue 2), so the same
names are used in the URL query string (``?bs=4&ap=6&shots=10``).

Any argument of a function that has no spec here still gets a control,
inferred from its default (a checkbox for a boolean, a slider for a number,
a dropdown whose options are read from the function's own error message for a
string): every argument a function accepts is on the dashboard.
"""
from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..errors import InputError, WorkbenchError

__all__ = ["Control", "Mode", "SPECS", "modes_for", "NONE_TOKEN"]

#: how ``None`` is written in a query string and shown in a dropdown
NONE_TOKEN = "none"

#: arguments every stat-level function ends with; never a control
RESERVED = ("method", "samples", "seed")


@dataclass(frozen=True)
class Control:
    """One dashboard control for one stat-level argument.

    * ``kind``: ``"int"`` (slider), ``"float"`` (slider), ``"optint"`` (a
      slider whose lowest position, ``lo - 1``, means ``None``: "no cap",
      "not used"), ``"bool"`` (checkbox) or ``"choice"`` (dropdown of
      ``options``).
    * ``default``: the dashboard's starting value (``None`` allowed for
      ``optint`` and for a choice that lists ``None``).
    """

    name: str
    kind: str
    default: Any
    lo: float | None = None
    hi: float | None = None
    step: float = 1
    options: tuple = ()
    label: str = ""
    help: str = ""

    def __post_init__(self):
        if self.kind not in ("int", "float", "optint", "bool", "choice"):
            raise InputError("kind", "one of 'int', 'float', 'optint', 'bool', 'choice'", self.kind)
        if self.kind == "choice" and self.default not in self.options:
            raise InputError(f"{self.name}.default", "one of " + ", ".join(map(repr, self.options)),
                             self.default)

    @property
    def text(self) -> str:
        return self.label or self.name

    # -- values <-> query text ---------------------------------------------
    def check(self, value: Any) -> Any:
        """``value`` if this control can show it, else :class:`InputError`."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise InputError(self.name, "true or false", value)
        if self.kind == "choice":
            for o in self.options:
                if o == value and type(o) is type(value):
                    return o
            raise InputError(self.name, "one of " + ", ".join(_token(o) for o in self.options), value)
        if self.kind == "optint" and value is None:
            return None
        number_ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.kind in ("int", "optint") and number_ok and float(value) != int(value):
            number_ok = False
        if not number_ok or not (self.lo <= value <= self.hi):
            expected = f"a {'whole ' if self.kind != 'float' else ''}number from {_num(self.lo)} to {_num(self.hi)}"
            if self.kind == "optint":
                expected += f" or {NONE_TOKEN!r}"
            raise InputError(self.name, expected, value)
        return float(value) if self.kind == "float" else int(value)

    def parse(self, text: str) -> Any:
        """The value written ``text`` in a query string (checked)."""
        raw = text.strip()
        if self.kind == "bool":
            low = raw.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise InputError(self.name, "true or false", raw)
        if self.kind == "choice":
            for o in self.options:
                if _token(o) == raw:
                    return o
            raise InputError(self.name, "one of " + ", ".join(_token(o) for o in self.options), raw)
        if self.kind == "optint" and raw.lower() == NONE_TOKEN:
            return None
        try:
            number = float(raw)
        except ValueError:
            number = None
        if number is None or number != number:  # NaN
            return self.check(raw)  # raises with the expected text
        if self.kind != "float" and number == int(number):
            number = int(number)
        return self.check(number)

    def format(self, value: Any) -> str:
        """The query-string text of ``value``."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "float":
            return f"{value:g}"
        return _token(value)


def _token(value: Any) -> str:
    return NONE_TOKEN if value is None else str(value)


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Mode:
    """One stat-level function on a dashboard: ``changes.shooting`` etc."""

    key: str               # "shooting", "melee", "close_combat"
    function: str          # attribute of the system module
    title: str
    controls: tuple[Control, ...] = field(default_factory=tuple)
    #: how control values become a call, for a function whose arguments are
    #: not flat (changes.volley): ``call(fn, values, **extra) -> Outcome``;
    #: None = ``fn(**values, **extra)``. Its controls are taken as given.
    call: Callable | None = None

    def resolve(self, module) -> Callable:
        return getattr(module, self.function)

    def run(self, module, values: dict[str, Any], **extra: Any):
        fn = self.resolve(module)
        if self.call is not None:
            return self.call(fn, values, **extra)
        return fn(**values, **extra)


def _i(name, default, lo, hi, label="", help=""):
    return Control(name, "int", default, lo, hi, 1, label=label, help=help)


def _opt(name, default, lo, hi, label="", help=""):
    return Control(name, "optint", default, lo, hi, 1, label=label, help=help)


def _b(name, default=False, label="", help=""):
    return Control(name, "bool", default, label=label, help=help)


def _c(name, default, options, label="", help=""):
    return Control(name, "choice", default, options=tuple(options), label=label, help=help)


def _f(name, default, lo, hi, step, label="", help=""):
    return Control(name, "float", default, lo, hi, step, label=label, help=help)


# ---------------------------------------------------------------------------
# the specs (defaults: the seeds' basic troopers, ten shots at a unit of ten)
# ---------------------------------------------------------------------------
_CHANGES_DEFENCE = (
    _i("t", 2, -2, 8, "T (+)", "toughness modifier added to S"),
    _i("sv", 3, -2, 8, "Sv (+)", "armour save modifier added to AP"),
    _i("inv", 0, 0, 8, "Inv (+)", "invulnerable modifier (the better of cover/Inv, D/Inv applies)"),
    _opt("models", 10, 1, 40, "models", "target unit size (leftmost = no cap)"),
    _i("wounds", 1, 1, 6, "W", "wounds per target model"),
    _b("natural_12_always_succeeds", False, "natural 12 always succeeds"),
    _b("natural_1_always_fails", False, "natural 1 always fails"),
)

#: the seed's two readings where the workbench's default could be argued
_CHANGES_READINGS = (
    _c("firer_cover_rule", "same", ("same", "better"), "target cover when the firer has gone to ground",
       "same: the target gets the firer's cover +2, as the rules say; better: the target keeps its own if better"),
    _c("heavy_shot", "bs_plus_4", ("bs_plus_4", "flat_4"), "heavy weapon in a SHOT action",
       "BALLISTIC SKILL U+4: BS +4 (bs_plus_4) or a flat 4+ (flat_4)"),
)

_CHANGES_SHOOTING = Mode("shooting", "shooting", "Shooting", (
    _i("bs", 5, 1, 13, "BS (N+)", "ballistic skill: a D12 roll of N or more (lower is better)"),
    _i("s", 5, 1, 13, "S (N+)", "weapon strength (roll stat)"),
    _i("ap", 5, 1, 13, "AP (N+)", "armour piercing (roll stat)"),
    _i("cover", 0, 0, 8, "cover (+)", "cover modifier added to BS"),
    _i("shots", 10, 1, 40, "shots"),
    _c("weapon", "light", ("light", "heavy"), "weapon class"),
    _c("action", "aimed", ("snap", "shot", "aimed"), "action"),
    _b("go_to_ground", False, "target gone to ground"),
    _b("evading", False, "target EVADING (snap shots only)"),
    _b("firer_gone_to_ground", False, "firer gone to ground (snap only)"),
    _i("firer_cover", 0, -2, 8, "firer's cover (+)", "the firer's cover modifier, given to its target when gone to ground"),
) + _CHANGES_READINGS + _CHANGES_DEFENCE)

_CHANGES_MELEE = Mode("melee", "melee", "Melee", (
    _i("ws", 5, 1, 13, "WS (N+)", "weapon skill: a D12 roll of N or more (lower is better)"),
    _i("s", 5, 1, 13, "S (N+)"),
    _i("ap", 5, 1, 13, "AP (N+)"),
    _i("attacks", 10, 1, 40, "attacks"),
    _i("d", 2, -2, 8, "D (+)", "dodge modifier added to WS"),
    _b("furious_charge", False, "Furious Charge (free attacks)"),
    _i("charging_models", 1, 0, 40, "charging models", "one free attack each with Furious Charge"),
    _b("blocked", False, "Blocked (no free attacks)"),
) + _CHANGES_DEFENCE)

#: changes volley: up to three units fire at one target, resolved together
VOLLEY_UNITS = 3
VOLLEY_UNIT_KEYS = ("bs", "s", "ap", "shots", "weapon", "action", "firer_gone_to_ground", "firer_cover")
_VOLLEY_DEFAULTS = {1: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed"),
                    2: dict(bs=5, s=4, ap=4, shots=3, weapon="heavy", action="aimed"),
                    3: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed")}
_VOLLEY_UNIT = re.compile(r"^u(\d+)_(.+)$")


def _volley_unit(i: int) -> tuple[Control, ...]:
    d = _VOLLEY_DEFAULTS[i]
    return (
        _i(f"u{i}_bs", d["bs"], 1, 13, f"unit {i} BS (N+)"),
        _i(f"u{i}_s", d["s"], 1, 13, f"unit {i} S (N+)"),
        _i(f"u{i}_ap", d["ap"], 1, 13, f"unit {i} AP (N+)"),
        _i(f"u{i}_shots", d["shots"], 1, 40, f"unit {i} shots"),
        _c(f"u{i}_weapon", d["weapon"], ("light", "heavy"), f"unit {i} weapon"),
        _c(f"u{i}_action", d["action"], ("snap", "shot", "aimed"), f"unit {i} action"),
        _b(f"u{i}_firer_gone_to_ground", False, f"unit {i} gone to ground"),
        _i(f"u{i}_firer_cover", 0, -2, 8, f"unit {i} cover (+)"),
    )


def volley_call(fn: Callable, values: dict[str, Any], **extra: Any):
    """``changes.volley`` from flat control values: ``units`` firing units,
    unit i's keys written ``u<i>_<key>`` (``u1_bs``, ``u2_action``...)."""
    n = values["units"]
    attackers = [{} for _ in range(n)]
    rest = {}
    for k, v in values.items():
        m = _VOLLEY_UNIT.match(k)
        if m:
            i = int(m.group(1))
            if i <= n:
                attackers[i - 1][m.group(2)] = v
        elif k != "units":
            rest[k] = v
    return fn(attackers, **rest, **extra)


_CHANGES_VOLLEY = Mode("volley", "volley", "Volley", (
    _i("units", 2, 1, VOLLEY_UNITS, "firing units", "units declared at the target, resolved together"),
) + sum((_volley_unit(i) for i in range(1, VOLLEY_UNITS + 1)), ()) + (
    _i("cover", 0, 0, 8, "cover (+)"),
    _i("models", 10, 1, 40, "models", "target unit size"),
    _b("go_to_ground", False, "target gone to ground"),
    _b("evading", False, "target EVADING (snap shots only)"),
) + _CHANGES_READINGS + tuple(c for c in _CHANGES_DEFENCE if c.name != "models"), call=volley_call)

_FORGOTTEN_SHOOTING = Mode("shooting", "shooting", "Shooting", (
    _i("shoot", 6, 1, 12, "SHOOT", "d10 + modifiers must reach SHOOT (lower is better)"),
    _i("attack_power", 5, 0, 10, "ATTACK POWER", "d10 damage roll must beat it (lower is stronger)"),
    _i("shots", 5, 1, 40, "shots"),
    _opt("models", 5, 1, 40, "models", "target unit size (leftmost = no cap)"),
    _c("moved", "cautious", ("stationary", "cautious", "normal"), "firer moved"),
    _c("range", "medium", ("close", "medium", "long"), "range"),
    _b("facing_away", False, "target facing away"),
    _b("cover", False, "target in cover / obscured (-2)"),
    _b("flanked", False, "firer in the target's rear 180 (cover ignored)"),
    _c("armour", "light", ("none", "light", "heavy"), "armour"),
    _c("cover_level", "none", ("none", "soft", "hard"), "cover level (damage)"),
    _c("aimed", None, (None, "hit", "damage"), "aimed fire bonus"),
    _b("blind_fire", False, "blind fire / spray (-1)"),
    _b("blast", False, "blast weapon (may blind fire with fewer than 3 shots)"),
    _c("blind_fire_rule", "seed", ("seed", "any"), "blind fire allowed",
       "seed: only at medium range with 3 or more shots or a blast weapon; any: always"),
    _b("aimed_fire_team", False, "a fire team may aim (one aimed shot per soldier)"),
    _c("damage_rule", "v2", ("v2", "v1"), "damage rule"),
    _c("kill_on", "above", ("above", "at_or_above"), "kill on"),
    _c("shock_rule", "seed", ("seed", "pooled"), "shock rule"),
    _opt("damage", None, 1, 12, "Damage (v1)", "weapon Damage for damage v1 (leftmost = not used)"),
    _opt("defence", None, 1, 12, "Defence (v1)", "target Defence for damage v1 (leftmost = not used)"),
    _opt("heroic_save", None, 1, 12, "heroic save (PHYS)", "a killed hero rolls against PHYS (leftmost = none)"),
    _b("tough", False, "tough (absorbs first kill)"),
    _b("shield", False, "target has a shield (+1 DEF, v1)"),
    _b("firer_wounded", False, "firer wounded (-1)"),
    _b("firer_shocked", False, "firer shocked"),
))

def _cc_side(side: str) -> tuple[Control, ...]:
    return (
        _i(f"{side}_cqc", 6, 0, 12, f"{side} CQC", f"{side}'s close-combat target number (lower is better)"),
        _opt(f"{side}_phys", 6, 1, 12, f"{side} PHYS", "v2 melee damage rolls above PHYS"),
        _i(f"{side}_weapon_bonus", 0, -3, 4, f"{side} ATTACK BONUS", "sword +1, two-handed axe +2 (v2)"),
        _c(f"{side}_armour", "light", ("none", "light", "heavy"), f"{side} armour"),
        _b(f"{side}_wounded", False, f"{side} wounded (-1)"),
        _b(f"{side}_tough", False, f"{side} tough"),
        _opt(f"{side}_heroic_save", None, 1, 12, f"{side} heroic save", "leftmost = none"),
        _opt(f"{side}_damage", None, 1, 12, f"{side} Damage (v1)", "leftmost = not used"),
        _opt(f"{side}_strength", None, 1, 12, f"{side} Strength (v1)", "leftmost = not used"),
        _opt(f"{side}_defence", None, 1, 12, f"{side} Defence (v1)", "leftmost = not used"),
    )


_FORGOTTEN_CC = Mode("close_combat", "close_combat", "Close combat", _cc_side("attacker") + _cc_side("defender") + (
    _c("response", "block", ("block", "counter"), "defender's response"),
    _b("shield", False, "defender shield (block die)"),
    _b("shield_when_countering", False, "shield used when countering"),
    _c("dual_weapons", None, (None, "hit", "damage"), "attacker dual weapons"),
    _c("defender_dual_weapons", None, (None, "hit", "damage"), "defender dual weapons"),
    _b("power_attack", False, "attacker power attack"),
    _b("defender_power_attack", False, "defender power attack"),
    _b("from_rear", False, "attack from the rear"),
    _b("facing_away", False, "defender facing away"),
    _b("outnumbered", False, "attacker outnumbered"),
    _b("defender_outnumbered", False, "defender outnumbered"),
    _c("damage_rule", "v2", ("v2", "v1"), "damage rule"),
    _c("kill_on", "above", ("above", "at_or_above"), "kill on"),
    _c("melee_phys", "attacker", ("attacker", "defender"), "PHYS rolled against"),
    _i("rounds", 1, 1, 20, "rounds of close combat",
       "fight on until one side is downed or this many rounds are fought; a wounded fighter is -1 after"),
))

_GUNFIRE_SHOOTING = Mode("shooting", "shooting", "Shooting", (
    _i("bs", 4, 0, 12, "BS", "attacker's ballistic skill (higher is better)"),
    _i("ev", 3, 0, 12, "Ev", "target's evasion"),
    _i("ap", 3, 0, 12, "AP"),
    _i("av", 3, 0, 12, "AV", "target's armour value"),
    _i("s", 1, 0, 12, "S"),
    _i("t", 1, 1, 12, "T"),
    _i("shots", 10, 1, 40, "shots"),
    _opt("models", 10, 1, 40, "models", "target unit size (leftmost = no cap)"),
    _i("hit_mod", 0, -6, 6, "hit modifier", "added to Ev (positive = harder)"),
    _i("pen_mod", 0, -6, 6, "pen modifier", "added to AV (positive = harder)"),
    _opt("explosive", None, 1, 6, "Explosive X", "leftmost = not explosive"),
    _f("suppression_fraction", 0.25, 0.05, 1.0, 0.05, "suppression fraction"),
    _c("die", 10, (6, 8, 10, 12, 20), "die"),
    _i("base", 6, 1, 20, "base", "equal stats need base+ on the die"),
    _b("natural_max_always_succeeds", False, "natural max always succeeds"),
    _b("natural_1_always_fails", False, "natural 1 always fails"),
))

_ANTARES_SHOOTING = Mode("shooting", "shooting", "Shooting", (
    _i("acc", 5, 0, 10, "Acc", "d10 roll-under accuracy (higher is better)"),
    _i("res", 5, 0, 10, "Res", "target's resist"),
    _i("sv", 1, 0, 8, "SV", "weapon strike value, subtracted from Res"),
    _i("armour", 0, 0, 8, "armour"),
    _i("cover", 0, 0, 8, "cover"),
    _i("acc_mod", 0, -6, 6, "Acc modifier"),
    _i("shots", 10, 1, 40, "shots"),
    _opt("models", 10, 1, 40, "models", "target unit size (leftmost = no cap)"),
    _b("critical_ignores_res", False, "critical hit ignores Res"),
))

#: the modes of each system, in display order (close combat added when the
#: module has it; its controls are completed from its signature)
SPECS: dict[str, tuple[Mode, ...]] = {
    "changes": (_CHANGES_SHOOTING, _CHANGES_MELEE, _CHANGES_VOLLEY),
    "forgotten": (_FORGOTTEN_SHOOTING, _FORGOTTEN_CC),
    "gunfire": (_GUNFIRE_SHOOTING,),
    "antares": (_ANTARES_SHOOTING,),
}


# ---------------------------------------------------------------------------
# inference for arguments without a spec
# ---------------------------------------------------------------------------
_ONE_OF = re.compile(r"^one of (.*)$")


def _options_from_error(fn: Callable, name: str, kwargs: dict) -> tuple | None:
    """Ask ``fn`` which values ``name`` allows, by giving it a bad one and
    reading ``InputError.expected`` ("one of 'a', 'b'")."""
    try:
        fn(**{**kwargs, name: "\x00not-a-value"})
    except InputError as exc:
        if exc.field != name:
            return None
        m = _ONE_OF.match(exc.expected)
        if not m:
            return None
        try:
            opts = ast.literal_eval("(" + m.group(1) + ",)")
        except (ValueError, SyntaxError):
            return None
        return tuple(opts)
    except Exception:  # noqa: BLE001 - any other failure: no options learnt
        return None
    return None


def _infer(fn: Callable, param: inspect.Parameter, known: dict[str, Any]) -> Control:
    name, default = param.name, param.default
    if default is inspect.Parameter.empty:
        return _i(name, 5, 0, 12)
    if isinstance(default, bool):
        return _b(name, default)
    if isinstance(default, int):
        return _i(name, default, min(0, default), max(10, 2 * default))
    if isinstance(default, float):
        return _f(name, default, min(0.0, default), max(1.0, 2 * default), 0.05)
    opts = _options_from_error(fn, name, known)
    if isinstance(default, str) or (opts and default is None):
        opts = opts or (default,)
        if default not in opts:
            opts = (default,) + opts
        return _c(name, default, opts)
    # None default without a known choice list: an optional whole number
    return _opt(name, None, 1, 12)


def modes_for(system: str, module) -> tuple[Mode, ...]:
    """The modes of ``system`` that its module provides, each with a control
    for every argument its function accepts (spec first, else inferred), in
    the function's argument order, followed by any extra spec'd arguments."""
    out = []
    for mode in SPECS[system]:
        fn = getattr(module, mode.function, None)
        if fn is None:
            continue
        if mode.call is not None:
            out.append(mode)
            continue
        spec = {c.name: c for c in mode.controls}
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.name not in RESERVED and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        known = {p.name: spec[p.name].default for p in params if p.name in spec}
        controls = []
        for p in params:
            if p.name in spec:
                controls.append(spec[p.name])
            else:
                c = _infer(fn, p, known)
                known[p.name] = c.default
                controls.append(c)
        out.append(replace(mode, controls=tuple(controls)))
    return tuple(out)


def check_values(mode: Mode, values: dict[str, Any]) -> None:
    """Raise :class:`WorkbenchError` for a value no control of ``mode`` can show."""
    by_name = {c.name: c for c in mode.controls}
    for k, v in values.items():
        if k not in by_name:
            raise WorkbenchError(f"{k}: not an argument of {mode.function}")
        by_name[k].check(v)
