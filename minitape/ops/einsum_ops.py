"""`einsum`: products and sums over labelled axes, e.g. "ij,jk->ik" is matmul and "ii->i" a diagonal.

The gradient for one operand is itself an einsum: the output gradient contracted with
the other operands onto that operand's labels. Labels that appear nowhere else were
summed away, so the gradient is broadcast along them; a label repeated within one
operand (a diagonal) gets its gradient placed back on the diagonal by an identity
matrix. Because the rule only uses einsum, reshape and broadcast_to, every order of
derivative works.
"""

from __future__ import annotations

import string

import numpy as np

from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.array_ops import reshape
from minitape.ops.math_ops import broadcast_to
from minitape.values.convert import as_array
from minitape.values.errors import InvalidArgumentError


def _parse(equation: str, n_operands: int) -> tuple[list[str], str]:
    equation = equation.replace(" ", "")
    if "." in equation:
        raise NotImplementedError("einsum with '...' is not supported by minitape; name every axis with a letter")
    inputs, _, output = equation.partition("->")
    subscripts = inputs.split(",")
    if len(subscripts) != n_operands:
        raise ValueError(
            f"einsum equation {equation!r} names {len(subscripts)} operand(s), but {n_operands} were given"
        )
    if "->" not in equation:  # implicit form: the letters used once, in alphabetical order
        letters = "".join(subscripts)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return subscripts, output


def _forward(*operands, subscripts, output):
    if any(a.dtype.kind == "b" for a in operands):  # TensorFlow has no bool Einsum kernel
        raise TypeError("einsum needs numeric tensors, not bool: cast first, e.g. mt.cast(x, mt.float32)")
    return np.einsum(",".join(subscripts) + "->" + output, *operands)


def _operand_gradient(op, g, k):
    subscripts, output = op.attrs["subscripts"], op.attrs["output"]
    sub, shape = subscripts[k], op.input_shapes[k]
    size = {c: shape[sub.index(c)] for c in sub}
    unique = "".join(dict.fromkeys(sub))
    others = [(s, t) for j, (s, t) in enumerate(zip(subscripts, op.inputs)) if j != k]
    elsewhere = set(output).union(*[set(s) for s, _ in others])
    kept = "".join(c for c in unique if c in elsewhere)
    grad = einsum_op(g, *[t for _, t in others], subscripts=(output, *[s for s, _ in others]), output=kept)
    if kept != unique:  # labels summed away in the forward pass: every element got the same gradient
        grad = reshape(grad, tuple(size[c] if c in kept else 1 for c in unique))
        grad = broadcast_to(grad, shape=tuple(size[c] for c in unique))
    if unique != sub:  # a label repeated in this operand: put the gradient back on the diagonal
        unused = iter(c for c in string.ascii_letters if c not in "".join(subscripts) + output)
        full, eyes, eye_subs, seen = "", [], [], set()
        for c in sub:
            if c in seen:
                fresh = next(unused)
                full += fresh
                eyes.append(Tensor(np.eye(size[c], dtype=op.input_dtypes[k].as_numpy_dtype)))
                eye_subs.append(c + fresh)
            else:
                full += c
                seen.add(c)
        grad = einsum_op(grad, *eyes, subscripts=(unique, *eye_subs), output=full)
    return grad


def _einsum_rule(op, g):
    return [_operand_gradient(op, g, k) if op.needs[k] else None for k in range(len(op.input_shapes))]


einsum_op = defop("Einsum", _forward, _einsum_rule, keep="inputs", same_dtype="all")


def einsum(equation: str, *inputs, **kwargs):
    """Sum of products over labelled axes, as numpy's and TensorFlow's einsum ("ij,jk->ik", "bxby->bxy")."""
    subscripts, output = _parse(equation, len(inputs))
    _check_sizes(f"einsum {equation!r}", subscripts, inputs)
    return einsum_op(*inputs, subscripts=tuple(subscripts), output=output)


def _check_sizes(what: str, subscripts, inputs) -> None:
    """Each operand has one letter per axis, and a letter has one size everywhere, as TensorFlow requires:
    numpy would broadcast a size-1 axis against a larger one, and the gradient would come back the wrong shape."""
    shapes = [np.shape(_value(t)) for t in inputs]
    size: dict[str, tuple[int, int, int]] = {}  # letter -> (size, operand, axis) where first seen
    for k, (sub, shape) in enumerate(zip(subscripts, shapes)):
        if len(sub) != len(shape):
            raise InvalidArgumentError(
                f"{what}: operand {k} has shape {list(shape)} (rank {len(shape)}) but its subscripts {sub!r} "
                f"name {len(sub)} axes; give one letter per axis (or '...' for the leading ones)"
            )
        for axis, (c, n) in enumerate(zip(sub, shape)):
            first = size.setdefault(c, (n, k, axis))
            if first[0] != n:
                raise InvalidArgumentError(
                    f"{what}: label {c!r} is {first[0]} long in operand {first[1]} (shape "
                    f"{list(shapes[first[1]])}) but {n} in operand {k} (shape {list(shape)}); an explicit label "
                    "must have one size everywhere, as in TensorFlow: mt.broadcast_to the operands to one shape, "
                    "or write the batch axes as '...', which broadcasts"
                )


def tensordot(a, b, axes, name=None):
    """Contract `axes` of a with `axes` of b: an int n means a's last n with b's first n; or a pair of lists."""
    rank_a, rank_b = len(np.shape(_value(a))), len(np.shape(_value(b)))
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(rank_a - int(axes), rank_a)), list(range(int(axes)))
    else:
        axes_a, axes_b = ([int(x)] if np.ndim(x) == 0 else [int(i) for i in x] for x in axes)
    if len(axes_a) != len(axes_b):
        raise ValueError(f"tensordot: axes {axes_a} of a and {axes_b} of b must pair up one to one")
    for axes_of, rank, which in ((axes_a, rank_a, "a"), (axes_b, rank_b, "b")):
        if any(not -rank <= i < rank for i in axes_of):  # a scalar has no axis to contract
            raise InvalidArgumentError(f"tensordot: axes {axes_of} are out of range for {which} of rank {rank}")
    letters = iter(string.ascii_letters)
    sub_a = [next(letters) for _ in range(rank_a)]
    sub_b = [next(letters) for _ in range(rank_b)]
    for i, j in zip(axes_a, axes_b):
        sub_b[j % rank_b] = sub_a[i % rank_a]
    contracted = set(sub_a[i % rank_a] for i in axes_a)
    output = [c for c in sub_a + sub_b if c not in contracted]
    _check_sizes(f"tensordot with axes {axes_a} and {axes_b}", ("".join(sub_a), "".join(sub_b)), (a, b))
    return einsum_op(a, b, subscripts=("".join(sub_a), "".join(sub_b)), output="".join(output))


def _value(t):
    return as_array(t)  # a ragged list is refused in our words
