"""Immutable rule-system objects: a rule system, a named mechanism's system and a
folder of rule files each set their attributes once, in ``__init__``, through
``self.__dict__`` (their functions are built from the file); afterwards they refuse
to change, like the frozen records they are made of."""
from __future__ import annotations


class Immutable:
    """Refuses every attribute assignment and deletion after ``__init__``."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"a {type(self).__name__} is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"a {type(self).__name__} is immutable (cannot delete {name!r})")
