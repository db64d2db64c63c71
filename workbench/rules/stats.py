"""The stats of a rule file, checked as every resolution checks them."""
from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import validate as v
from ..errors import InputError, UnknownArgumentError
from ..outcome import Outcome
from .errors import ForbiddenError
from .loader import parse_text
from .spec import Forbid, Note, RuleStat
from .view import View, effect_labels

__all__ = ["StatChecks"]

#: the keywords of a resolution beside the stats, with their defaults
_RUN = (("method", "exact"), ("samples", 100_000), ("seed", 0))


def _from_text(cls, text: str, path: str):
    """A system of class ``cls`` read from its rule file's ``text`` (how a pickled one comes back)."""
    return cls(parse_text(text, path), Path(path), text)


class StatChecks:
    """The stats of a rule file, checked as every resolution checks them: a file of stages
    (:class:`RuleSystem`) and a file of a named mechanism
    (:class:`~workbench.rules.mechanism_system.MechanismSystem`) alike. A subclass has ``key``,
    ``stats``, ``forbids``, ``_by_name`` and ``_options`` (written by :meth:`_read_parts`; and
    ``_value`` for scalar forbids, ``_attack`` for its ``attack``)."""

    # written by _read_parts (declared only, for the type checker)
    key: str
    name: str
    die: int
    #: the notes shown with every resolution (those of ``note_rules`` without a condition)
    notes: tuple[str, ...]
    #: every note of ``system.notes``, in file order, with its condition (:meth:`notes_for`)
    note_rules: tuple[Note, ...]
    path: Path
    source: str
    stats: tuple[RuleStat, ...]
    forbids: tuple[Forbid, ...]
    #: the file's ``[view]``: how the workbench shows it (:mod:`workbench.rules.view`)
    view: View
    effect_labels: dict[str, str]
    _by_name: dict[str, RuleStat]
    _value: Callable[..., int]
    _attack: Callable[..., Outcome]

    def _read_parts(self, parts: Mapping[str, Any], path: str | Path, source: str) -> None:
        """The attributes every rule file has, from the loader's checked parts."""
        d = self.__dict__
        for k in ("key", "name", "die"):
            d[k] = parts[k]
        for k in ("stats", "forbids"):
            d[k] = tuple(parts[k])
        d["note_rules"] = tuple(parts["notes"])
        d["notes"] = tuple(n.text for n in self.note_rules if n.when is None)
        d["view"] = parts.get("view") or View()
        #: how a playtester reads each side effect (:func:`~workbench.rules.view.effect_labels`)
        d["effect_labels"] = effect_labels(parts.get("chances", ()), self.view)
        d["path"] = Path(path)
        d["source"] = source
        d["_by_name"] = {s.name: s for s in self.stats}
        d["_options"] = {s.name: dict(s.options) for s in self.stats if s.kind == "choice"}

    def _entry(self, name: str, doc: str, call: Callable | None = None) -> Callable:
        """``call`` as the system's function ``name``: the stats as keywords, the signature
        :func:`inspect.signature` shows (no ``call``: ``_attack``, with ``method``, ``samples``, ``seed``)."""
        run = call is None
        params = [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.default) for s in self.stats]
        if run:
            params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=x) for n, x in _RUN]

            def call(method="exact", samples=100_000, seed=0, **stats) -> Outcome:   # the defaults of _RUN
                return self._attack(method, samples, seed, stats)

        def entry(*args, **stats):
            self._keywords_only(args)
            return call(**stats)

        entry.__signature__ = (inspect.Signature(params, return_annotation=Outcome) if run  # type: ignore[attr-defined]
                               else inspect.Signature(params))
        entry.__doc__ = doc
        entry.__name__ = name
        entry.__qualname__ = f"{self.key}.{name}"
        return entry

    def __reduce__(self):
        # pickled as its text (for worker processes): its class reading it again gives the same system
        return (_from_text, (type(self), self.source, str(self.path)))

    def _keywords_only(self, args: tuple) -> None:
        if args:
            raise UnknownArgumentError("arguments", f"stats as keywords for {self.key}.attack(), e.g. "
                                       f"{self.stats[0].name if self.stats else 'method'}=...", args)

    # -- stats ---------------------------------------------------------------
    def stat(self, name: str) -> RuleStat:
        return self._by_name[name]

    def _check(self, given: Mapping[str, Any], arrays: bool) -> tuple[dict, dict]:
        """(inputs as checked, env of integers for expressions)."""
        for k in given:
            if k not in self._by_name:
                names = [s.name for s in self.stats]
                raise UnknownArgumentError(
                    "argument name", f"one of {', '.join(names + [n for n, _ in _RUN])} for {self.key}.attack()",
                    k, v.did_you_mean(k, names))
        inputs: dict[str, Any] = {}  # stat name -> its checked value
        env: dict[str, Any] = {}     # stat name -> the number the expressions read
        options = self.__dict__["_options"]
        for s in self.stats:
            value = given.get(s.name, s.default)
            if not arrays:   # the common case, a plain value already right: checked in full below otherwise
                plain = _plain(s, value, options)
                if plain is not None:
                    inputs[s.name] = value
                    env[s.name] = plain
                    continue
            if arrays and s.kind == "int" and value is not None:
                if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) > 1:
                    raise InputError(s.name, f"a whole number from {s.min} to {s.max} or a 1-D array", value)
                checked = v.integers(s.name, value, s.min, s.max)  # type: ignore[arg-type]  # the loader gives both
            else:
                checked, wrong = s.check(value, toml=False)
                if wrong:
                    raise InputError(s.name, wrong, value, v.did_you_mean(value, options.get(s.name, ())))
            inputs[s.name] = checked
            if checked is not None:
                env[s.name] = s.value_of(checked)
        return inputs, env

    def _begin(self, given: Mapping[str, Any], method, samples, seed, scalar: bool = False) -> tuple:
        """The start of one resolution: the stats and the keywords checked, the forbids tried:
        (env, method, the Generator of a sampled call or None, the inputs to record)."""
        inputs, env = self._check(given, arrays=False)
        self._forbid(env, scalar=scalar)
        method, samples, rng = v.method_args(method, samples, seed)
        record = dict(inputs, method=method)
        if method != "exact":
            if rng is None:  # method_args gives a Generator for every method but "exact"
                raise RuntimeError("no random generator for a sampled resolution")
            record["samples"] = samples
        return env, method, rng, record

    def notes_for(self, *envs: Mapping[str, Any]) -> tuple[str, ...]:
        """The file's notes for a resolution at the scalar stats ``envs`` (a volley's profiles, one
        env each), in file order: the plain ones, and each whose ``when`` holds for one of them."""
        return tuple(n.text for n in self.note_rules if n.when is None or any(
            int(n.when.evaluate(env, f"system.notes[{n.index}].when")) for env in envs))

    def notes_at(self, **stats) -> tuple[str, ...]:
        """The file's notes for one resolution at ``stats`` (checked; missing ones take their defaults)."""
        return self.notes_for(self._check(stats, arrays=False)[1])

    def _forbid(self, env: Mapping[str, Any], scalar: bool = False) -> None:
        for f in self.forbids:
            if scalar:      # one cell: the condition's value remembered by the stats it reads
                if not self._value(f.when, env, f"forbid[{f.index}].when"):
                    continue
            hit = np.asarray(f.when.evaluate(env, f"forbid[{f.index}].when")) != 0
            if hit.any():
                shown: dict[str, int | bool | str] = {}
                for name in sorted(f.when.names):   # each stat's value in the first cell hit, as it is given
                    val = np.asarray(env[name])
                    number = int(np.broadcast_to(val, hit.shape)[hit][0] if val.ndim else val)
                    stat = self._by_name[name]
                    shown[name] = (bool(number) if stat.kind == "bool" else number if stat.kind == "int"
                                   else next(o for o, x in stat.options if x == number))
                raise ForbiddenError(", ".join(sorted(f.when.names)) or f"forbid[{f.index}]", f.message,
                                     f.when.source, shown)


def _plain(s: RuleStat, value: Any, options: Mapping[str, Mapping[str, int]]) -> int | None:
    """The number an expression reads for ``value`` when it is a plain Python value already in
    range (an int, a bool, an option's name), else None (then the full check runs)."""
    t = type(value)
    if s.kind == "int":
        return value if t is int and s.min is not None and s.max is not None and s.min <= value <= s.max else None
    if s.kind == "bool":
        return int(value) if t is bool else None
    return options[s.name].get(value) if t is str else None
