"""`einsum` with TensorFlow's and numpy's `...` (the axes not named by letters), written as letters before the
equation reaches the einsum op, so that its gradient rule sees ordinary labelled axes."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops.einsum_ops import einsum as _einsum_letters
from minitape.ops.math_ops import broadcast_to
from minitape.values.convert import as_array
from minitape.values.errors import InvalidArgumentError


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Sum of products over labelled axes, as numpy's and TensorFlow's einsum ("ij,jk->ik", "...ij,...jk->...ik").

    The axes under '...' broadcast as in TensorFlow (size 1 against n): the operand is broadcast_to the common
    batch shape first, so its gradient is summed back over the copies by broadcast_to's rule.
    """
    spelled, inputs = _spell_out_ellipsis(equation, inputs)
    return _einsum_letters(spelled, *inputs, **kwargs)


def _spell_out_ellipsis(equation: str, inputs: tuple) -> tuple[str, tuple]:
    """The equation with '...' written as letters, and the operands broadcast along them to one size each."""
    equation = equation.replace(" ", "")
    if "..." not in equation:
        return equation, inputs
    lhs, arrow, rhs = equation.partition("->")
    subscripts = lhs.split(",")
    if len(subscripts) != len(inputs):
        return equation, inputs  # the einsum op reports the mismatch
    free = [c for c in string.ascii_letters if c not in equation]
    shapes = [np.shape(as_array(t)) for t in inputs]
    spans = [len(shape) - (len(sub) - 3) if "..." in sub else 0 for sub, shape in zip(subscripts, shapes)]
    width = max(spans)
    letters = "".join(free[:width])
    size: dict[str, int] = {}
    for sub, shape, span in zip(subscripts, shapes, spans):
        if "..." in sub:
            start = sub.index("...")
            for letter, n in zip(letters[width - span :], shape[start : start + span]):
                if size.setdefault(letter, n) == 1:
                    size[letter] = n
                elif n not in (1, size[letter]):
                    raise InvalidArgumentError(
                        f"einsum {equation!r}: the axes under '...' do not broadcast: sizes {size[letter]} and {n} "
                        f"(operand shapes {', '.join(str(list(s)) for s in shapes)}); each batch axis must be one "
                        "size, or 1 in some operands"
                    )
    spelled, operands = [], []
    for sub, shape, span, operand in zip(subscripts, shapes, spans, inputs):
        if "..." in sub:
            start = sub.index("...")
            mine = letters[width - span :]
            wanted = (*shape[:start], *(size[c] for c in mine), *shape[start + span :])
            if wanted != tuple(shape):
                operand = broadcast_to(operand, shape=wanted)
            sub = sub.replace("...", mine)
        spelled.append(sub)
        operands.append(operand)
    if arrow:
        output = rhs.replace("...", letters)
    else:  # implicit output: the '...' axes first, then the letters used once, in alphabetical order
        named = "".join(s.replace("...", "") for s in subscripts)
        output = letters + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return ",".join(spelled) + "->" + output, tuple(operands)
