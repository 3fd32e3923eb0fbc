"""`einsum` with TensorFlow's and numpy's `...` (the axes not named by letters), written as letters before the
equation reaches the einsum op, so that its gradient rule sees ordinary labelled axes."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from minitape.ops.einsum_ops import einsum as _einsum_letters
from minitape.tensor import Tensor, TensorLike


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Sum of products over labelled axes, as numpy's and TensorFlow's einsum ("ij,jk->ik", "...ij,...jk->...ik")."""
    return _einsum_letters(_spell_out_ellipsis(equation, inputs), *inputs, **kwargs)


def _spell_out_ellipsis(equation: str, inputs: tuple) -> str:
    equation = equation.replace(" ", "")
    if "..." not in equation:
        return equation
    lhs, arrow, rhs = equation.partition("->")
    subscripts = lhs.split(",")
    if len(subscripts) != len(inputs):
        return equation  # the einsum op reports the mismatch
    free = [c for c in string.ascii_letters if c not in equation]
    shapes = [np.shape(t.numpy() if isinstance(t, TensorLike) else t) for t in inputs]
    spans = [len(shape) - (len(sub) - 3) if "..." in sub else 0 for sub, shape in zip(subscripts, shapes)]
    width = max(spans)
    letters = "".join(free[:width])
    size: dict[str, int] = {}
    spelled = []
    for sub, shape, span in zip(subscripts, shapes, spans):
        if "..." not in sub:
            spelled.append(sub)
            continue
        start = sub.index("...")
        mine = letters[width - span :]
        for letter, n in zip(mine, shape[start : start + span]):
            if size.setdefault(letter, n) != n:
                raise NotImplementedError(
                    f"einsum {equation!r}: the axes under '...' differ in size ({size[letter]} and {n}); "
                    "minitape does not broadcast them: mt.broadcast_to the operands to one batch shape first"
                )
        spelled.append(sub.replace("...", mine))
    if arrow:
        output = rhs.replace("...", letters)
    else:  # implicit output: the '...' axes first, then the letters used once, in alphabetical order
        named = "".join(s.replace("...", "") for s in subscripts)
        output = letters + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return ",".join(spelled) + "->" + output
