"""Where in the student's code an op ran: found cheaply per op, turned into a file and line only when asked."""

from __future__ import annotations

import os
import sys
from typing import Any

_PACKAGE = __name__.split(".", 1)[0] + "."
_INSIDE: dict[str, bool] = {}  # module name -> is it minitape's or numpy's (asked once per module)
_PLACES: dict[tuple, tuple] = {}


def user_code(frame: Any) -> tuple[Any, int]:
    """The code object and instruction offset of the innermost caller outside minitape and numpy.

    The walk starts at `frame`, the frame that called the op: for code a student types, already the
    answer. The line number is worked out only when someone asks (`line_of`): that costs more than
    the rest of a record.
    """
    while True:
        module = frame.f_globals.get("__name__", "")
        inside = _INSIDE.get(module)
        if inside is None:
            inside = _INSIDE[module] = module.startswith((_PACKAGE, "numpy."))
        if not inside or frame.f_back is None:
            key = id(frame.f_code), frame.f_lasti  # by identity: equal code in two files is two places
            place = _PLACES.get(key)
            if place is None:  # one tuple per place, which a loop's records share; it keeps its code (and id)
                if len(_PLACES) >= 10_000:  # code run once (notebook cells run again) must not pile up here
                    _PLACES.clear()
                place = _PLACES[key] = frame.f_code, frame.f_lasti
            return place
        frame = frame.f_back


def line_of(code_and_offset: tuple[Any, int] | None) -> tuple[str, int] | None:
    """(file, line) of a place `user_code` found."""
    if code_and_offset is None:
        return None
    code, offset = code_and_offset
    line = next((n for start, end, n in code.co_lines() if start <= offset < end and n is not None), None)
    return code.co_filename, line or code.co_firstlineno


def user_line(frame: Any = None) -> tuple[str, int]:
    """File and line of the student's line of code that is running now (for messages)."""
    return line_of(user_code(frame or sys._getframe(2)))


def format_where(where: tuple[str, int] | None) -> str:
    """A user line for messages: 'train.py:12', or 'line 12 of its cell' for code typed in a notebook."""
    if not where:
        return "an unknown line"
    file, line = where
    if "ipykernel_" in file or file.startswith("<ipython-input"):  # a notebook cell's made-up file name
        return f"line {line} of its cell"
    return f"{os.path.basename(file)}:{line}"
