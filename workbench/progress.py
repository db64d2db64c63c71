"""Progress bars for work that may take more than about a second.

One helper, :func:`bar`, wraps ``tqdm.auto`` (a widget in a notebook or in
Voila, a text bar on the command line) with ``delay=1.0``: a bar appears only
once the work has run for a second, so quick sweeps stay silent.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Iterable, Iterator, TypeVar

__all__ = ["bar", "DELAY", "quiet", "active"]

#: seconds before a bar is drawn (shorter work shows nothing)
DELAY = 1.0

T = TypeVar("T")

_QUIET = contextvars.ContextVar("workbench_progress_quiet", default=False)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Inside this block :func:`bar` draws nothing (an outer bar already shows the work,
    e.g. a sweep calling a sampled function once per cell)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def active() -> bool:
    """False inside :func:`quiet`."""
    return not _QUIET.get()


def bar(iterable: Iterable[T], *, total: int | None = None, desc: str = "", unit: str = "it",
        enabled: bool = True) -> Iterator[T]:
    """Iterate over ``iterable`` with a progress bar drawn after :data:`DELAY` seconds.

    ``enabled=False`` iterates plainly (for callers that run many small jobs).
    """
    if not enabled or not active():
        yield from iterable
        return
    from tqdm.auto import tqdm

    with tqdm(iterable, total=total, desc=desc, unit=unit, delay=DELAY, leave=False,
              dynamic_ncols=True) as it:
        yield from it
