"""Reading a rule file: TOML via :mod:`tomllib`, every key checked against the core format.

Every problem raises :class:`~workbench.rules.errors.RuleFileError` naming
the file, the field (``stages[1].target``, ``stats.bs.max``), what is allowed,
what was found, and the line (from ``tomllib`` for a syntax error, from
:class:`~workbench.rules.reader.Reader`, whose typed getters read every value,
for a value). Unknown keys are errors too, so a typo never passes silently.
"""
from __future__ import annotations

import keyword
import re
from dataclasses import fields, replace
import tomllib
from pathlib import Path
from typing import Any

from .errors import RuleFileError
from .expr import MAX_LITERAL, Expr
from .reader import Reader
from .says import read_says, text_when
from .spec import Chance, DamageRoll, Forbid, Note, Removal, RuleStage, RuleStat, Volley
from .view import read as read_view

__all__ = ["parse_text", "read_file", "RESERVED", "MAX_DIE", "MAX_EXTRA", "MAX_FILE"]

IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED = ("min", "max", "abs", "method", "samples", "seed", "successes")
MAX_DIE = 100
MAX_EXTRA = 20
MAX_STATS = 64
MAX_STAGES = 16
MAX_FORBIDS = 64
MAX_CHANCES = 32
#: stage tallies one chance may read together (their joint distribution has one dimension each)
MAX_JOINT = 3
#: the most a chance's ``up_to`` may read a count as
MAX_UP_TO = 1000
#: faces of an attack's tokens die (``attack.tokens_die``, checked again at resolution)
MAX_TOKENS_DIE = 100
#: profiles one volley may name at most (``volley.max_profiles``)
MAX_PROFILES = 100
#: how a volley's profiles meet the removal
ALLOCATIONS = ("together", "in_order")
#: counts a ``[[chances]]`` condition may read besides the stages' tallies
COUNTS = ("successes", "removed")
MAX_FILE = 200_000
DICE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")

_TOP = ("system", "stats", "attack", "stages", "removal", "forbid", "chances", "volley", "mechanism", "view")
#: the tables a file of a named mechanism leaves to the mechanism
_NOT_WITH_MECHANISM = ("attack", "stages", "removal", "chances", "volley")
_SYSTEM = ("key", "name", "die", "notes", "order")
#: the most parts one rule folder's ``order`` may place
MAX_ORDER = 99
#: a stage's keys: its record's fields (``die`` an integer or an expression)
_STAGE = tuple(f.name for f in fields(RuleStage) if f.name != "die_expr")
_REMOVAL = tuple(f.name for f in fields(Removal))
#: the keys of a removal model by model (a save, tough models, models that start wounded)
_BY_MODEL = ("save", "save_die", "save_name", "save_says", "tough", "already_wounded")
#: a stage's keys read as one of a few words: key -> (the words, the default)
_STAGE_OPTIONS = {"roll": (("high", "low"), "high"), "on_critical": (("none", "extra", "skip_next", "to_end"), "none"),
                  "reroll": (("none", "ones", "failed"), "none"), "passes_on": (("success", "fail"), "success")}


def read_file(path: str | Path) -> tuple[dict, str]:
    """The checked parts of the rule file at ``path`` and its text."""
    path = Path(path)
    if path.is_dir():
        raise RuleFileError(path, "file", "a rule file (a folder of rule files, one system of several parts, "
                            "loads with rules.load_system)", "a folder")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleFileError(path, "file", "a readable rule file", exc.strerror or str(exc)) from None
    if len(raw) > MAX_FILE:
        raise RuleFileError(path, "file", f"a rule file of at most {MAX_FILE} bytes", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError(path, "file", "UTF-8 text", f"a byte that is not UTF-8 at {exc.start}") from None
    return parse_text(text, path), text


def parse_text(text: str, path: str | Path = "<rule file>") -> dict:
    """Check a rule file's TOML text; returns its parts (see :class:`workbench.rules.RuleSystem`)."""
    path = Path(path)
    if not isinstance(text, str):
        raise RuleFileError(path, "file", "TOML text", type(text).__name__)
    if len(text) > MAX_FILE or len(text.encode("utf-8")) > MAX_FILE:
        raise RuleFileError(path, "file", f"a rule file of at most {MAX_FILE} bytes", "a longer text")
    r = Reader(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        line = getattr(exc, "lineno", None)
        if line is None:
            m = re.search(r"line (\d+)", msg)
            line = int(m.group(1)) if m else None
        raise RuleFileError(path, "TOML", "valid TOML", re.sub(r"\s*\(at line.*\)$", "", msg), line) from None
    except (RecursionError, MemoryError):
        raise RuleFileError(path, "TOML", "valid TOML of modest nesting", "a too deeply nested file") from None
    except ValueError:  # tomllib turning an integer of over 4,300 digits into a Python int
        line = next((i for i, t in enumerate(text.splitlines(), 1) if re.search(r"\d{4300}", t)), None)
        field = next((f for f, n in reversed(list(r.lines.items())) if n == line), "TOML")
        raise RuleFileError(path, field, "an integer of at most 4,300 digits", "a longer integer", line) from None
    r.known(data, "", _TOP)

    # [system]
    if "system" not in data:
        r.fail("system", "a [system] table with key, name and die", "nothing")
    system = r.table(data["system"], "system", _SYSTEM)
    key = r.string(system, "key", "system")
    if not IDENT.match(key):
        r.fail("system.key", "a lower-case identifier ([a-z][a-z0-9_]*)", key)
    name = r.string(system, "name", "system")
    die = r.integer(system, "die", "system", 2, MAX_DIE)
    # where the file comes among the parts of a rule folder (one system of several files)
    order = r.integer(system, "order", "system", 1, MAX_ORDER, None)

    # [stats.NAME]
    stats_data = r.table(data.get("stats", {}), "stats")
    if len(stats_data) > MAX_STATS:
        r.fail("stats", f"at most {MAX_STATS} stats", len(stats_data))
    stats = tuple(_stat(r, sname, sd) for sname, sd in stats_data.items())
    names = frozenset(s.name for s in stats)
    notes = _notes(r, system.get("notes", []), names - {s.name for s in stats if s.optional})
    view = read_view(r, data.get("view"), stats)  # how the workbench shows it: no number reads it
    parts = dict(key=key, name=name, die=die, notes=notes, stats=stats, order=order, view=view)
    if "mechanism" in data:
        return _mechanism_file(r, data, parts, names)

    # [attack]
    attack = r.table(data.get("attack", {}), "attack", ("count", "tokens_die"))
    count = r.expr(attack, "count", "attack", names, "1")
    tokens_die = r.expr(attack, "tokens_die", "attack", names, None)

    # [[stages]]
    stages_data = data.get("stages", None)
    if not stages_data:
        r.fail("stages", "one or more [[stages]] tables", stages_data if stages_data is not None else "nothing")
    stages = tuple(_stage(r, field, sd, die, names) for _, field, sd in r.entries(
        stages_data, "stages", "one or more [[stages]] tables", MAX_STAGES, "stages", _STAGE))
    seen: dict[str, int] = {}
    for i, st in enumerate(stages):
        if st.name in ("criticals", "wasted_damage") or st.name in seen:
            r.fail(f"stages[{i}].name", "a stage name used once, other than criticals and wasted_damage",
                   st.name)
        seen[st.name] = i
    tallies = _tallies(r, stages, names, seen)

    # [removal]
    removal = _removal(r, r.table(data.get("removal", {}), "removal"), names, die)

    forbids = _forbids(r, data, names)

    chances = _chances(r, data.get("chances", []), names, tallies, set(seen) | set(tallies), stages, removal)
    _optional_reads(r, stats, count, tokens_die, stages, removal, forbids, chances)
    volley = None
    if "volley" in data:
        volley = _volley(r, r.table(data["volley"], "volley"), stats, removal, chances,
                         set(seen) | set(tallies) | {c.name for c in chances})

    return dict(parts, count=count, stages=stages, removal=removal, forbids=forbids, tokens_die=tokens_die,
                chances=chances, volley=volley)


def _notes(r: Reader, data: Any, names) -> tuple[Note, ...]:
    """``system.notes``: strings, shown with every resolution, or tables ``{ text, when }``, shown
    only where the stats make ``when`` (an expression of the stats ``names``: none optional) true."""
    if not isinstance(data, list):
        r.fail("system.notes", "a list of strings or { text, when } tables", data)
    return tuple(Note(*text_when(r, n, f"system.notes[{i}]", names), i) for i, n in enumerate(data))


def _forbids(r: Reader, data: dict, names) -> tuple[Forbid, ...]:
    """``[[forbid]]``: conditions on the stats that refuse a resolution, with the designer's message."""
    return tuple(Forbid(r.expr(fd, "when", field, names), r.string(fd, "message", field), i)
                 for i, field, fd in r.entries(data.get("forbid", []), "forbid", "[[forbid]] tables with when and "
                                               "message", MAX_FORBIDS, "forbid rules", ("when", "message")))


def _mechanism_file(r: Reader, data: dict, parts: dict, names) -> dict:
    """A file whose resolution is a named mechanism (docs/rulefiles.md, "Mechanisms"): its
    [system], [stats] and [[forbid]] as any file's, its [mechanism] read by the mechanism."""
    from .mechanisms import MECHANISMS
    for top in _NOT_WITH_MECHANISM:
        if top in data:
            r.fail(top, "no [attack], [[stages]], [removal], [[chances]] or [volley] in a file with a [mechanism] "
                   "(the mechanism resolves it)", f"a {top} table")
    table = r.table(data["mechanism"], "mechanism")
    if table.get("name") not in MECHANISMS:
        r.fail("mechanism.name", "one of " + ", ".join(f'"{n}"' for n in MECHANISMS),
               table.get("name", "nothing"))
    module = MECHANISMS[table["name"]]
    spec = module.read(r, {k: x for k, x in table.items() if k != "name"}, names)
    if hasattr(module, "check"):  # a mechanism that needs its stats of some kinds and ranges
        module.check(r, spec, parts["stats"])
    return dict(parts, forbids=_forbids(r, data, names), mechanism=table["name"], spec=spec)


def _volley(r: Reader, vd: dict, stats, removal: Removal, chances, taken) -> Volley:
    """``[volley]``: the stats each profile sets, read by nothing that happens once for the
    whole volley (the removal, the chances); the effect names, each used once."""
    r.known(vd, "volley", ("profile", "allocation", "each", "not_needed", "max_profiles"))
    names = {s.name for s in stats}
    optional = {s.name for s in stats if s.optional}
    prof = vd.get("profile")
    if not isinstance(prof, list) or not prof:
        r.fail("volley.profile", "a list of the stats each profile sets", prof if prof is not None else "nothing")
    for i, p in enumerate(prof):
        if not isinstance(p, str) or p not in names or p in optional:
            r.fail(f"volley.profile[{i}]", "the name of a stat of the file (not an optional one)", p)
    if len(set(prof)) != len(prof):
        r.fail("volley.profile", "each stat once", prof)
    own = set(prof)
    allocation = r.option(vd, "allocation", "volley", ALLOCATIONS, "together")
    # in listed order each profile's removal is its own: its damage or pooled formula may read its stats
    own_removal = ("damage", "removed") if allocation == "in_order" else ()
    exprs = _exprs(removal, "removal", own_removal) + [(f"chances[{c.index}].when", c.when) for c in chances]
    for field, e in exprs:
        if e is not None and e.names & own:
            r.fail(field, "only shared stats (the volley's removal and chances happen once for all its "
                   f"profiles; {sorted(e.names & own)[0]} is set per profile in volley.profile)", e.source)
    for c in chances:
        if not isinstance(c.count, str) and "removed" in c.count:
            r.fail(f"chances[{c.index}].when", "in a file with a [volley], removed read alone or tallies "
                   "without it", c.when.source)
    seen = set(taken) | {"criticals", "wasted_damage", *COUNTS}
    out = {}
    for key, default in (("each", "successes"), ("not_needed", "")):
        x = r.string(vd, key, "volley", default)
        if x and (not IDENT.match(x) or (x in seen and not (key == "each" and x == "successes"))):
            r.fail(f"volley.{key}", "a lower-case identifier naming the effect, not a stage, a count, a "
                   "chance, criticals or wasted_damage, and not the other volley effect", x)
        seen.add(x)
        out[key] = x
    most = r.integer(vd, "max_profiles", "volley", 1, MAX_PROFILES, 20)
    return Volley(profile=tuple(prof), allocation=allocation, each=out["each"], not_needed=out["not_needed"],
                  max_profiles=most)


def _optional_reads(r: Reader, stats, count, tokens_die, stages, removal, forbids, chances) -> None:
    """An optional stat (``optional = true``, a unit with no size) is read only as the whole of
    ``removal.models``: no other expression has a value for "none"."""
    optional = {s.name for s in stats if s.optional}
    if not optional:
        return
    exprs = [("attack.count", count), ("attack.tokens_die", tokens_die)]
    exprs += [e for i, st in enumerate(stages) for e in _exprs(st, f"stages[{i}]")]
    exprs += _exprs(removal, "removal", ("models",))
    exprs += [(f"forbid[{f.index}].when", f.when) for f in forbids]
    size = unit_size_stat(removal, optional)
    exprs += [(f"chances[{c.index}].when", c.when) for c in chances if not c.when.names & optional <= {size}]
    if size is None:   # models is not the whole of an optional stat: it may read none
        exprs.append(("removal.models", removal.models))
    for field, e in exprs:
        if e is not None and e.names & optional:
            name = sorted(e.names & optional)[0]
            r.fail(field, f"no optional stat ({name} may be none: only removal.models = \"{name}\" reads it)",
                   e.source)


def _exprs(record: RuleStage | Removal, where: str, leave=()) -> list[tuple[str, Expr]]:
    """(field, expression) of every expression a stage or a removal holds, in field order."""
    return [(f"{where}.{f.name}", x) for f in fields(record)
            if isinstance(x := getattr(record, f.name), Expr) and f.name not in leave]


def unit_size_stat(removal: Removal, optional) -> str | None:
    """The optional stat that is the whole of ``removal.models`` (the unit size, none: a unit
    without a size), or None. A ``[[chances]]`` condition may read it: where it is none the
    chance is not defined and is left out of the effects ("the unit is destroyed" has no
    meaning for a unit without a size)."""
    if removal.models is None:
        return None
    name = removal.models.source.strip()
    return name if name in optional else None


def _tallies(r: Reader, stages, names, stage_names) -> dict[str, str]:
    """Every stage's count names (``tally``, ``critical_tally``): identifiers used once, not a stat,
    not a stage's name nor a word the engine reports -> the field that names them."""
    out: dict[str, str] = {}
    taken = set(names) | set(stage_names) | {"criticals", "wasted_damage", *COUNTS, *RESERVED}
    for i, st in enumerate(stages):
        for key in ("tally", "critical_tally", "near_miss_tally"):
            t = getattr(st, key)
            if not t:
                continue
            field = f"stages[{i}].{key}"
            if not IDENT.match(t) or keyword.iskeyword(t):
                r.fail(field, "a lower-case identifier ([a-z][a-z0-9_]*) naming the count", t)
            if t in taken or t in out:
                r.fail(field, "a count name used once, not a stat, a stage name, criticals, wasted_damage, "
                       + ", ".join(COUNTS) + " or " + ", ".join(RESERVED), t)
            out[t] = field
    return out


def _removed_beside_tallies(r: Reader, cd: dict, field: str, read, tallies, stages, removal: Removal) -> None:
    """A chance reading ``removed`` beside 1 or 2 stage tallies: resolved by stepping the attacks
    through a model-by-model removal, each count read up to ``up_to``."""
    others = [x for x in read if x != "removed"]
    if not set(others) <= set(tallies) or len(read) > MAX_JOINT:
        r.fail(f"{field}.when", f"removed beside 1 to {MAX_JOINT - 1} stage tallies", ", ".join(read))
    if not removal.by_model:
        r.fail(f"{field}.when", "removed beside tallies only with a model-by-model removal (save, tough or "
               "already_wounded)", ", ".join(read))
    if "up_to" not in cd:
        r.fail(f"{field}.up_to", "a number the counts are read up to, when removed is read beside tallies",
               "nothing")
    last = stages[-1]
    if last.critical and last.on_critical == "extra" and last.passes_on != "fail":
        r.fail(f"{field}.when", "removed beside tallies with a last stage whose criticals add no tokens",
               f"stages[{len(stages) - 1}].on_critical = \"extra\"")


def _chances(r: Reader, data: Any, names, tallies, taken, stages, removal: Removal) -> tuple[Chance, ...]:
    counts = set(tallies) | set(COUNTS)
    out, seen = [], set(taken) | {"criticals", "wasted_damage"}
    for i, field, cd in r.entries(data, "chances", "[[chances]] tables with name and when", MAX_CHANCES, "chances",
                                  ("name", "when", "label", "up_to")):
        name = r.string(cd, "name", field)
        if name in seen:
            r.fail(f"{field}.name", "a name used once, not a stage, a count, criticals or wasted_damage", name)
        seen.add(name)
        when = r.expr(cd, "when", field, names | counts)
        read = sorted(when.names & counts)
        if len(read) >= 2 and "removed" in read:
            _removed_beside_tallies(r, cd, field, read, tallies, stages, removal)
        elif not (len(read) == 1 or (2 <= len(read) <= MAX_JOINT and set(read) <= set(tallies))):
            r.fail(f"{field}.when", "a condition on one count (" + ", ".join(sorted(counts))
                   + f") or on 2 to {MAX_JOINT} stage tallies, and any stats", when.source)
        out.append(Chance(name, when, read[0] if len(read) == 1 else tuple(read), i,
                          r.string(cd, "label", field, name), r.integer(cd, "up_to", field, 1, MAX_UP_TO, None)))
    return tuple(out)


def _stat(r: Reader, sname: Any, sd: Any) -> RuleStat:
    field = f"stats.{sname}"
    if not isinstance(sname, str) or not IDENT.match(sname):
        r.fail(field, "a stat name that is a lower-case identifier ([a-z][a-z0-9_]*)", sname)
    if keyword.iskeyword(sname) or sname in RESERVED:
        r.fail(field, "a stat name that is not a Python keyword nor one of " + ", ".join(RESERVED), sname)
    sd = r.table(sd, field)
    label = r.string(sd, "label", field, sname)
    help_ = r.string(sd, "help", field, "", nonempty=False)
    kind = r.option(sd, "kind", field, ("int", "bool", "choice"), "choice" if "options" in sd else "int")
    if kind == "bool":
        r.known(sd, field, ("kind", "default", "label", "help"))
        stat = RuleStat(sname, "bool", None, label=label, help=help_)
    elif kind == "choice":
        r.known(sd, field, ("kind", "options", "default", "label", "help"))
        opts = sd.get("options", None)
        if not isinstance(opts, dict) or not opts:
            r.fail(f"{field}.options", "a table of option name = integer", opts if opts is not None else "nothing")
        for oname, oval in opts.items():
            if isinstance(oval, bool) or not isinstance(oval, int) or abs(oval) > MAX_LITERAL:
                r.fail(f"{field}.options.{oname}", f"an integer up to {MAX_LITERAL} in size", oval)
        stat = RuleStat(sname, "choice", None, options=tuple(opts.items()), label=label, help=help_)
    else:
        r.known(sd, field, ("kind", "min", "max", "default", "label", "help", "optional"))
        lo = r.integer(sd, "min", field, -MAX_LITERAL, MAX_LITERAL)
        hi = r.integer(sd, "max", field, -MAX_LITERAL, MAX_LITERAL)
        if hi < lo:
            r.fail(f"{field}.max", f"a whole number at least min ({lo})", hi)
        stat = RuleStat(sname, "int", None, min=lo, max=hi, label=label, help=help_,
                        optional=r.boolean(sd, "optional", field, False))
    default, wrong = stat.check(sd.get("default"), toml=True)   # None, no TOML value: refused as required
    if wrong:
        r.fail(f"{field}.default", wrong + ("" if "default" in sd else " (required)"), sd.get("default", "nothing"))
    return replace(stat, default=default)


def _stage(r: Reader, field: str, sd: dict, die: int, names) -> RuleStage:
    die_expr = r.expr(sd, "die", field, names, None) if isinstance(sd.get("die"), str) else None
    sdie = die if die_expr is not None else r.integer(sd, "die", field, 2, MAX_DIE, die)
    most = MAX_DIE if die_expr is not None else sdie   # a switched die's faces are checked when it is rolled
    # extra without an "extra" critical, or on_critical without critical faces, is allowed and
    # changes nothing (a designer switching a rule off need not delete its settings)
    read: dict[str, Any] = {k: r.option(sd, k, field, *allowed) for k, allowed in _STAGE_OPTIONS.items()}
    read |= {k: r.expr(sd, k, field, names, None) for k in ("modifier", "critical_when", "on_critical_when")}
    read |= {k: r.faces(sd, k, field, most) for k in ("always_fail", "always_succeed", "critical")}
    read |= {k: r.string(sd, k, field, "") for k in ("tally", "critical_tally", "near_miss_tally")}
    st = RuleStage(name=r.string(sd, "name", field), die=sdie, target=r.expr(sd, "target", field, names),
                   extra=r.integer(sd, "extra", field, 0, MAX_EXTRA, 1), die_expr=die_expr,
                   long_shot=r.boolean(sd, "long_shot", field, False), says=read_says(r, sd, field, names), **read)
    both = sorted(set(st.always_fail) & set(st.always_succeed))
    if both:
        r.fail(f"{field}.always_succeed", "faces not also in always_fail", both[0])
    crit_fail = sorted(set(st.always_fail) & set(st.critical))
    if crit_fail:
        r.fail(f"{field}.critical", "faces not in always_fail (a critical always succeeds)", crit_fail[0])
    if st.passes_on == "fail" and st.critical:
        r.fail(f"{field}.critical", 'no critical faces on a stage with passes_on = "fail"', list(st.critical))
    if st.near_miss_tally and st.passes_on == "fail":
        r.fail(f"{field}.near_miss_tally", 'no near-miss count on a stage with passes_on = "fail"',
               st.near_miss_tally)
    return st


def _dice(r: Reader, text: Any) -> DamageRoll:
    field = "removal.damage_roll"
    expected = 'dice notation such as "d3", "2d6" or "d6+1"'
    if not isinstance(text, str):
        r.fail(field, expected, text)
    m = DICE.match(text)
    if not m or any(len(g or "") > 6 for g in m.groups()):   # no number of over 6 digits reaches int()
        r.fail(field, expected, text if len(text) <= 40 else text[:40] + "...")
    n = int(m.group(1)) if m.group(1) else 1
    sides = int(m.group(2))
    plus = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    if not 1 <= n <= 10 or not 1 <= sides <= MAX_DIE or abs(plus) > 100:
        r.fail(field, expected + f" with 1 to 10 dice of 1 to {MAX_DIE} faces and a bonus up to 100", text)
    if n + plus < 0:
        r.fail(field, "a roll that never gives negative damage", text)
    return DamageRoll(n, sides, plus, text.strip())


def _by_model(r: Reader, rd: dict, names, models, die: int) -> Removal:
    """A removal model by model: ``save`` (reading ``wounded``), ``save_die``, ``tough`` and
    ``already_wounded``; each success is one blow, so nothing of damage per success or a pooled
    formula goes beside it."""
    clash = [k for k in ("wounds", "damage", "damage_roll", "spill", "removed") if k in rd]
    if clash:
        r.fail(f"removal.{clash[0]}", "nothing of damage per success or a pooled formula beside save, "
               "tough or already_wounded (each success is one blow to the model in front)", rd[clash[0]])
    if "wounded" in names:
        r.fail("removal.save", "no stat named wounded beside a model-by-model removal (the save reads "
               "wounded as whether the model in front is wounded)", "a stat named wounded")
    lone = [k for k in ("save_die", "save_name", "save_says") if k in rd and "save" not in rd]
    if lone:
        r.fail(f"removal.{lone[0]}", f"a save beside {lone[0]}", rd[lone[0]])
    return Removal(models=models, wounds=None, damage=None,
                   save=r.expr(rd, "save", "removal", names | {"wounded"}, None),
                   save_die=r.integer(rd, "save_die", "removal", 2, MAX_DIE, die),
                   save_name=r.string(rd, "save_name", "removal", "save"),
                   save_says=read_says(r, rd, "removal", names | {"wounded"}, "save_says"),
                   tough=r.expr(rd, "tough", "removal", names, None),
                   already_wounded=r.expr(rd, "already_wounded", "removal", names, None))


def _removal(r: Reader, rd: dict, names, die: int = 6) -> Removal:
    r.known(rd, "removal", _REMOVAL)
    models = r.expr(rd, "models", "removal", names, None)
    if any(k in rd for k in _BY_MODEL):
        return _by_model(r, rd, names, models, die)
    if "removed" in rd:
        clash = [k for k in ("wounds", "damage", "damage_roll", "spill") if k in rd]
        if clash:
            r.fail(f"removal.{clash[0]}", "nothing beside a pooled removed formula", rd[clash[0]])
        removed = r.expr(rd, "removed", "removal", names | {"successes"})
        return Removal(models=models, removed=removed)
    if "damage" in rd and "damage_roll" in rd:
        r.fail("removal.damage_roll", "either damage or damage_roll, not both", rd["damage_roll"])
    wounds = r.expr(rd, "wounds", "removal", names, "1")
    damage_roll = _dice(r, rd["damage_roll"]) if "damage_roll" in rd else None
    damage = None if damage_roll else r.expr(rd, "damage", "removal", names, "1")
    spill = r.boolean(rd, "spill", "removal", False)
    return Removal(models=models, wounds=wounds, damage=damage, damage_roll=damage_roll, spill=spill)
