"""The command line's output files: each ``--out``/``--csv``/``--png`` name checked before anything is
computed, and written with what the system refuses said in one line (no traceback)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import InputError

__all__ = ["STDOUT", "output_path", "write_output"]

#: the name that means standard output
STDOUT = "-"


def output_path(option: str, value: str | None) -> Path | None:
    """The file ``--out``/``--csv`` name, checked before anything is computed;
    ``None`` for standard output (left out, or ``-``).

    Refused (:class:`~workbench.errors.InputError`): an empty name, a folder,
    a file in a folder that does not exist (nothing creates folders for you: a
    mistyped path should not leave new folders behind), and a file that
    exists and cannot be written.
    """
    if value is None or value == STDOUT:
        return None
    if not value.strip():
        raise InputError(option, "a file name, or - for standard output", value)
    path = Path(value).expanduser()
    if path.is_dir():
        raise InputError(option, "a file to write, not a folder", value, "name a file inside it")
    folder = path.parent
    if not folder.is_dir():
        raise InputError(option, "a file in a folder that exists", value,
                         f"{folder} does not exist: create it first, or name another folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(option, "a file this user may write", value, "it is read-only")
    return path


def write_output(option: str, out: Path | None, data: bytes, note: str = "") -> None:
    """``data`` to standard output (``out`` None) or to ``out``, with what the system refuses said in one line."""
    if out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise InputError(option, "a file this user may write", str(out), exc.strerror or type(exc).__name__) from None
    print(f"wrote {out}{note}", file=sys.stderr)
