"""Nested structures (lists, tuples, namedtuples, dicts) flattened to a list and packed back, as `tf.nest` does.

Dicts flatten in sorted key order, so the same structure always gives the same order; packing keeps the
structure's own key order. Anything else (None, numbers, strings, sets, tensors, arrays) is a leaf.
"""

from collections import defaultdict as _defaultdict
from typing import Any as _Any

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq: _Any) -> bool:
    """Whether `seq` is a list, tuple or dict (so flatten looks inside it), even an empty one."""
    return isinstance(seq, (list, tuple, dict))


_is_sequence = is_nested


def flatten(structure: _Any, expand_composites: bool = False) -> list:
    """Return the leaves of `structure` in a fixed order. (minitape has no composite tensors to expand.)"""
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


def _rebuild(s: _Any, values: list) -> _Any:
    """A container like `s` holding `values` (for a dict: in sorted key order, as flatten gives them)."""
    if isinstance(s, dict):
        by_key = dict(zip(sorted(s), values))
        items = [(k, by_key[k]) for k in s]
        return type(s)(s.default_factory, items) if isinstance(s, _defaultdict) else type(s)(items)
    if isinstance(s, tuple) and hasattr(s, "_fields"):  # namedtuple
        return type(s)(*values)
    return type(s)(values)


def _children(s: _Any) -> list:
    return [s[k] for k in sorted(s)] if isinstance(s, dict) else list(s)


def pack_sequence_as(structure: _Any, flat_sequence: _Any, expand_composites: bool = False) -> _Any:
    """Inverse of `flatten`: put the values of `flat_sequence` into the shape of `structure`.

    ValueError if `structure` has a different number of leaves than `flat_sequence` has items, as in TensorFlow.
    """
    if not _is_sequence(flat_sequence):
        raise TypeError(
            f"pack_sequence_as: flat_sequence must be a list or tuple of leaves, not {type(flat_sequence).__name__}"
        )
    flat = list(flat_sequence)
    if not _is_sequence(structure):
        if len(flat) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat)} > 1; give one value")
        return flat[0]
    if type(structure) is list and len(structure) == len(flat) and not any(map(_is_sequence, structure)):
        return flat  # a flat list: nothing to rebuild
    n_leaves = len(flatten(structure))
    if n_leaves != len(flat):
        raise ValueError(
            f"Could not pack sequence. Structure had {n_leaves} atoms, but flat_sequence had {len(flat)} items. "
            f" Structure: {structure}, flat_sequence: {flat}."
        )
    it = iter(flat)

    def pack(s: _Any) -> _Any:
        return _rebuild(s, [pack(c) for c in _children(s)]) if _is_sequence(s) else next(it)

    return pack(structure)


def assert_same_structure(nest1: _Any, nest2: _Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raise unless the two structures nest the same way: ValueError for a different nesting, length or set of
    dict keys; TypeError (if `check_types`) for different container types, e.g. a list and a tuple."""
    stack = [(nest1, nest2)]
    while stack:
        a, b = stack.pop()
        if _is_sequence(a) != _is_sequence(b):
            nested, leaf = (a, b) if _is_sequence(a) else (b, a)
            raise ValueError(
                f"The two structures don't have the same nested structure: {nest1!r} and {nest2!r}. "
                f"{nested!r} is a sequence, while {leaf!r} is not"
            )
        if not _is_sequence(a):
            continue
        if check_types and type(a) is not type(b):
            raise TypeError(
                f"The two structures don't have the same sequence type: {a!r} is a {type(a).__name__}, {b!r} a "
                f"{type(b).__name__}; convert one, or pass check_types=False"
            )
        if isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b):
            raise ValueError(
                f"The two dictionaries don't have the same set of keys: {sorted(a, key=repr)} and {sorted(b, key=repr)}"
            )
        if len(a) != len(b):
            raise ValueError(
                f"The two structures don't have the same number of elements: {a!r} has {len(a)}, {b!r} has {len(b)}"
            )
        stack.extend(zip(_children(a), _children(b)))


def map_structure(func: _Any, *structure: _Any, check_types: bool = True, expand_composites: bool = False) -> _Any:
    """Apply `func` to the leaves of one or more structures of the same nesting, keeping the first's structure.

    `map_structure(f, a, b)` calls `f(leaf_of_a, leaf_of_b)`; the structures must match (see assert_same_structure).
    """
    if not structure:
        raise ValueError("map_structure needs at least one structure to map over, e.g. map_structure(f, x)")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    leaves = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*args) for args in zip(*leaves)])
