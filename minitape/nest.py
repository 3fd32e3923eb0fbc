"""Nested structures (lists, tuples, dicts) flattened to a list and packed back, as `tf.nest` does.

Dicts flatten in sorted key order, so the same structure always gives the same order.
"""

from __future__ import annotations

from typing import Any


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def flatten(structure: Any) -> list:
    """Return the leaves of `structure` in a fixed order. A leaf is anything but a list, tuple or dict."""
    if not _is_sequence(structure):
        return [structure]
    if type(structure) is list and not any(map(_is_sequence, structure)):  # a flat list, e.g. a model's weights
        return structure.copy()
    out: list = []
    stack = [structure]
    while stack:  # iterative, so deep structures cannot hit the recursion limit
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item[k] for k in reversed(sorted(item)))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def pack_sequence_as(structure: Any, flat: list) -> Any:
    """Inverse of `flatten`: put the values of `flat` into the shape of `structure`."""
    if type(structure) is list and len(structure) == len(flat) and not any(map(_is_sequence, structure)):
        return list(flat)  # a flat list: nothing to rebuild
    it = iter(flat)

    def pack(s: Any) -> Any:
        if isinstance(s, dict):
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        if isinstance(s, tuple) and hasattr(s, "_fields"):  # namedtuple
            return type(s)(*(pack(v) for v in s))
        if isinstance(s, (list, tuple)):
            return type(s)(pack(v) for v in s)
        return next(it)

    return pack(structure)


def map_structure(fn: Any, structure: Any) -> Any:
    """Apply `fn` to every leaf, keeping the structure."""
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])
