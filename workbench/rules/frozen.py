"""Immutable rule-system objects: a rule system, a named mechanism's system and a
folder of rule files each set their attributes once, in ``__init__``, through
``self.__dict__`` (their functions are built from the file); afterwards they refuse
to change, like the frozen records they are made of; what they work out again and again
for the same stats they keep in bounded caches (:func:`remember`)."""
from __future__ import annotations

from typing import Callable, TypeVar

_T = TypeVar("_T")


def remember(cache: dict, key, make: Callable[[], _T], most: int = 4096) -> _T:
    """``cache[key]``, made by ``make()`` the first time; a cache holding ``most`` entries is
    emptied before it takes another, so that its memory stays bounded."""
    value = cache.get(key)
    if value is None:
        if len(cache) >= most:
            cache.clear()
        value = cache[key] = make()
    return value


class Immutable:
    """Refuses every attribute assignment and deletion after ``__init__``."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"a {type(self).__name__} is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"a {type(self).__name__} is immutable (cannot delete {name!r})")
