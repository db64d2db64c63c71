"""Profile picker: load units from ``profiles/`` into a dashboard's controls.

Attacker, weapon and target dropdowns list the system's shipped units
(``workbench.profiles.list_units``). Choosing any of them loads the trio at
once (``workbench.profiles.matchup_kwargs``, one recompute), so the picker
never shows units the controls do not hold: a dropdown left at "custom
values" loads nothing, and once a control is moved away from the loaded
units the three dropdowns go back to "custom values". The system's
description says which mode a weapon loads (a changes melee weapon loads the
melee mode).
"""
from __future__ import annotations

import contextlib
import html
from typing import Any

import ipywidgets as W

from ..errors import WorkbenchError
from . import guard
from .looks import html_widget

__all__ = ["ProfilePicker", "CUSTOM"]

#: what a dropdown shows while the controls hold no shipped unit (ipywidgets
#: reads a None value as "nothing selected": the choice's value is "")
CUSTOM = ("custom values", "")


class ProfilePicker:
    """Dropdowns ``wb-profile-attacker``, ``wb-profile-weapon`` and
    ``wb-profile-target`` (each with a "custom values" choice) and the
    message ``wb-profile-message``. ``loaded``: the ``(mode, kwargs)`` the
    controls were last set from, or None."""

    def __init__(self, dashboard):
        self.dashboard = dashboard
        self.system = dashboard.system
        self.units: dict[str, Any] = {}  # unit key -> its profile
        self.loaded: tuple[str, dict[str, Any]] | None = None
        self._quiet = 0
        self.message = html_widget("wb-profile-message")
        try:
            from .. import profiles
            self.units = {u.key: u for u in profiles.list_units(self.system)}
        except (ImportError, WorkbenchError, KeyError, AttributeError) as exc:
            self.message.value = f"<i>No army lists: {html.escape(guard.plain_message(exc))}</i>"
        options = [CUSTOM] + [(u.name, u.key) for u in self.units.values()]
        looks = dict(layout=W.Layout(width="250px", max_width="100%"), style={"description_width": "70px"},
                     tooltip="")
        self.attacker, self.weapon, self.target = (
            guard.Dropdown(options=choices, value="", description=text, **looks).add_class(f"wb-profile-{key}")
            for key, text, choices in (("attacker", "shooter", options), ("weapon", "weapon", [CUSTOM]),
                                       ("target", "target", options)))
        self.attacker.observe(lambda change: self._on_attacker(), names="value")
        for w in (self.weapon, self.target):
            w.observe(lambda change: self._on_choice(), names="value")
        self.dashboard.on_refresh(self._check)
        if not self.units:
            for w in (self.attacker, self.weapon, self.target):
                w.disabled = True
        else:
            self.message.value = "<i>Pick a shooter, a weapon and a target to load them from the army lists.</i>"
        self.widget = W.VBox([W.HBox([W.HTML("<b>Army lists</b>"), self.attacker, self.weapon, self.target],
                                     layout=W.Layout(flex_flow="row wrap", align_items="center")),
                              self.message]).add_class("wb-profiles")

    @contextlib.contextmanager
    def quiet(self):
        """Set the dropdowns without loading what they show."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def _fill_weapons(self) -> None:
        unit = self.units.get(self.attacker.value)
        weapons = () if unit is None else unit.weapons
        keep = self.weapon.value
        self.weapon.options = [CUSTOM] + [(w.name + (f" ({w.stats['class']})" if "class" in w.stats else ""), w.name)
                                          for w in weapons]
        names = [w.name for w in weapons]
        self.weapon.value = keep if keep in names else (names[0] if names else "")

    @guard.guarded(lambda self, text: self.dashboard._show_error(text))
    def _on_attacker(self) -> None:
        if self._quiet:
            return
        with self.quiet():
            self._fill_weapons()
        self._on_choice()

    @guard.guarded(lambda self, text: self.dashboard._show_error(text))
    def _on_choice(self) -> None:
        if self._quiet:
            return
        if "" in (self.attacker.value, self.weapon.value, self.target.value):
            self.message.value = "<i>Pick a shooter, a weapon and a target to load them.</i>"
            return
        self.load()

    def select(self, attacker: str, weapon: str, target: str) -> bool:
        """Choose the dropdowns by unit key and weapon name and load them (one recompute)."""
        with self.quiet():
            self.attacker.value = attacker
            self._fill_weapons()
            self.weapon.value = weapon
            self.target.value = target
        return self.load()

    def load(self) -> bool:
        """Set the dashboard's controls from the chosen units (one recompute)."""
        attacker, target = self.units.get(self.attacker.value), self.units.get(self.target.value)
        if attacker is None or target is None or not self.weapon.value:
            return False
        weapon = attacker.weapon(self.weapon.value)
        try:
            from .. import profiles
            mode, kwargs = profiles.profile_kwargs(self.system, attacker, weapon, target)
            if mode not in self.dashboard.modes:
                raise WorkbenchError(f"{self.system} has no {mode} page")
            names = {c.name for c in self.dashboard.modes[mode].controls}
            usable = {k: v for k, v in kwargs.items() if k in names}
            skipped = sorted(set(kwargs) - names)
            self.loaded = (mode, usable)
            ok = self.dashboard.set_values(mode=mode, **usable)
        except WorkbenchError as exc:
            self.loaded = None
            self.dashboard._show_error(f"Army lists: {exc}")
            return False
        text = f"Loaded {html.escape(attacker.name)} ({html.escape(weapon.name)}) vs {html.escape(target.name)}."
        if skipped:
            text += f" Not on this page: {html.escape(', '.join(skipped))}."
        self.message.value = f"<i>{text}</i>"
        return ok

    def holds_loaded(self) -> bool:
        """Whether the controls still hold the units last loaded."""
        if self.loaded is None or self.dashboard.mode.key != self.loaded[0]:
            return False
        values = self.dashboard.values()
        return all(values.get(k) == v for k, v in self.loaded[1].items())

    def _check(self) -> None:
        """After a recompute: back to "custom values" once the controls left the loaded units."""
        if self.loaded is None or self.holds_loaded():
            return
        self.loaded = None
        with self.quiet():
            self.attacker.value = ""
            self.weapon.options = [CUSTOM]
            self.weapon.value = ""
            self.target.value = ""
        self.message.value = "<i>The controls hold custom values; pick units to load them again.</i>"
