"""TensorFlow's functional control flow, run eagerly: `tf.cond`, `tf.case`, `tf.switch_case`, `tf.while_loop`,
`tf.scan`, `tf.foldl` and `tf.foldr`.

Each calls its Python functions as TensorFlow 2's eager mode does (cond calls the branch its predicate picks,
while_loop calls body while cond holds), so a tape records the ops they run: gradients flow through the
branch taken and through every iteration. The predicates and the trip count are read with `bool()` and `int()`,
which under `mt.function` record guards (minitape/function/trace.py): a later call whose predicate goes the
other way, or whose loop runs another number of times, traces again instead of replaying the path it did not take.

Where TensorFlow's eager and graph modes disagree, these keep the graph's rules, which `tf.function` checks, so
that a function gives the same answer or the same error traced or not: a predicate must be a bool (eager
TensorFlow takes any truthy value), and a loop variable (a scan's or a fold's accumulator too) keeps its
structure, dtype and shape across iterations unless `shape_invariants` loosens the shape (eager TensorFlow lets
the shape change). The one place they follow each mode: while_loop's results come in the container its body last
returned, as eager TensorFlow's, and in that of `loop_vars` while traced, as TensorFlow's graph gives them (a
list or a tuple: the values are the same). Only the branch taken runs, so two branches that return different
structures go unnoticed, as in eager TensorFlow (its graph builds both branches and compares them).
`back_prop=False` changes nothing, as in TensorFlow 2.21's eager mode (its graph stops the gradients there): wrap
the results in mt.stop_gradient.
`parallel_iterations`, `swap_memory`, `infer_shape` and `name` are accepted and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.function.scopes import executing_eagerly
from minitape.namespaces.tensor_array import TensorArray
from minitape.ops.api import stack, unstack
from minitape.ops.creation import zeros
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import bool as bool_
from minitape.values.errors import InvalidArgumentError, OutOfRangeError
from minitape.values.shape import TensorShape
from minitape.values.tensor_like import TensorLike

__all__ = ["case", "cond", "foldl", "foldr", "scan", "switch_case", "while_loop"]


# ---- cond, case, switch_case --------------------------------------------------------------------------------
def _truth(pred: Any, op: str) -> bool:
    """The predicate's value as a Python bool; `bool()` of a traced tensor records the guard."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    tensor = pred if isinstance(pred, TensorLike) else convert_to_tensor(pred)
    if tensor.dtype != bool_:
        raise InvalidArgumentError(
            f"{op}: pred must be a bool tensor, not {tensor.dtype.name} (TensorFlow's graph: Input 'pred' passed "
            f"{tensor.dtype.name} expected bool); compare first, e.g. mt.cond(x > 0, ...)"
        )
    if tensor.shape.num_elements() != 1:
        raise ValueError(
            f"{op}: pred must be a scalar, not a tensor of shape {tuple(tensor.shape)}; reduce it first, "
            "e.g. mt.reduce_all(x > 0) or mt.reduce_any(x > 0)"
        )
    return bool(tensor)


def _unpack_singleton(result: Any) -> Any:
    """A branch's one-element list or tuple as its element, as tf.case does unless strict=True."""
    return result[0] if isinstance(result, (list, tuple)) and len(result) == 1 else result


def cond(pred: Any, true_fn: Callable | None = None, false_fn: Callable | None = None, name: str | None = None) -> Any:
    """`true_fn()` if `pred` holds, else `false_fn()`: what the branch returns, as it returns it.

    `pred` is a bool scalar (a Python bool, or a bool tensor of one element). Only the branch taken runs.
    """
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    return true_fn() if _truth(pred, "cond") else false_fn()


def _case_pairs(pred_fn_pairs: Any, exclusive: bool) -> list:
    """The (predicate, function) pairs, checked as TensorFlow's case checks them."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:
            raise ValueError(
                "Unordered dictionaries are not supported for the 'pred_fn_pairs' argument when `exclusive=False` "
                "and eager mode is enabled."
            )
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not pred_fn_pairs:
        raise ValueError("case needs at least one (pred, fn) pair in pred_fn_pairs, e.g. [(x < y, f1)]")
    for k, pair in enumerate(pred_fn_pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, TensorLike):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype != bool_:
            raise TypeError(f"pred must be Tensor of type bool: pred_fn_pairs[{k}] is {pred.dtype.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred_fn_pairs[{k}] must be callable.")
    return list(pred_fn_pairs)


def case(
    pred_fn_pairs: Any,
    default: Callable | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The function of the first pair whose bool predicate holds, called; `default()` if none does.

    With `exclusive=True` every predicate is read and more than one holding is an error. Without a default
    the last pair is the default, and its predicate must hold when no other does. A one-element list or tuple
    a function returns comes back as its element unless `strict=True` (as eager TensorFlow's case gives it).
    """
    pairs = _case_pairs(pred_fn_pairs, exclusive)
    if default is not None and not callable(default):
        raise TypeError("'false_fn' must be callable.")  # TensorFlow's words: the default is the last cond's false_fn
    if exclusive:
        truths = [_truth(pred, "case") for pred, _ in pairs]
        if sum(truths) > 1:
            raise InvalidArgumentError(
                f"Input error: exclusive=True: more than 1 conditions evaluated as True: {truths}; with "
                "exclusive=True at most one predicate may hold"
            )
        chosen = next((fn for truth, (_, fn) in zip(truths, pairs) if truth), default)
    else:  # in order, up to the first that holds (a later one is not read, so it adds no guard)
        chosen = next((fn for pred, fn in pairs if _truth(pred, "case")), default)
    if chosen is None:  # no default: the last pair stood in for it, and its predicate did not hold either
        truths = [bool(pred) for pred, _ in pairs]
        raise InvalidArgumentError(
            f"Input error: None of conditions evaluated as True: {truths}; give a default, or make one predicate hold"
        )
    result = chosen()
    return result if strict else _unpack_singleton(result)


def _switch_branches(branch_index: Any, branch_fns: Any, default: Callable | None) -> list:
    """The branch functions in index order (the default last), checked as TensorFlow's switch_case checks them."""
    if not isinstance(branch_index, TensorLike):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype!r}")
    if branch_index.shape.rank != 0:
        raise InvalidArgumentError(
            f"switch_case: branch_index must be a scalar, but it has shape {list(branch_index.shape)}; "
            "e.g. mt.reshape(i, [])"
        )
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        if not isinstance(pair[0], int):
            raise TypeError(f"key must be a Python `int`, got {type(pair[0])}")
        if not callable(pair[1]):
            raise TypeError(f"fn for key {pair[0]} must be callable.")
    keys = sorted(key for key, _ in pairs)
    if keys != list(range(len(keys))):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
            f"{{{','.join(map(str, keys))}}}"
        )
    return [fn for _, fn in sorted(pairs, key=lambda pair: pair[0])] + ([default] if default is not None else [])


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None, name: str = "switch_case") -> Any:
    """`branch_fns[branch_index]()`: an int scalar tensor picks the branch; an index out of range picks
    `default`, or the last branch without one. `branch_fns` is a list of functions, a list of (int, function)
    pairs or a dict from int to function, the keys running from 0 without gaps."""
    fns = _switch_branches(branch_index, branch_fns, default)
    index = int(branch_index)  # under mt.function a guard on the index: another index traces again
    return fns[index if 0 <= index < len(fns) else -1]()


# ---- loops: the loop variables keep their structure, dtypes and shapes ------------------------------------------
def _leaf_paths(structure: Any, root: str) -> list[str]:
    """Each leaf's place, in nest.flatten's order: `loop_vars[1]['s']`."""
    if isinstance(structure, dict):
        return [p for key in sorted(structure) for p in _leaf_paths(structure[key], f"{root}[{key!r}]")]
    if isinstance(structure, (list, tuple)):
        return [p for k, item in enumerate(structure) for p in _leaf_paths(item, f"{root}[{k}]")]
    return [root]


def _flatten_up_to(shallow: Any, deep: Any) -> list:
    """`deep`'s parts at the places of `shallow`'s leaves (a TensorShape, itself a tuple, stays whole)."""
    if not nest.is_nested(shallow):
        return [deep]
    if not nest.is_nested(deep) or isinstance(deep, TensorShape) or len(deep) != len(shallow):
        raise ValueError(
            f"shape_invariants must have the structure of loop_vars: {shallow!r} and {deep!r} differ; give one "
            "TensorShape (or list of sizes, None where a size may change) per loop variable"
        )
    if isinstance(shallow, dict):
        return [s for key in sorted(shallow) for s in _flatten_up_to(shallow[key], deep[key])]
    return [s for a, b in zip(shallow, deep) for s in _flatten_up_to(a, b)]


def _is_tensor_array(value: Any) -> bool:
    return isinstance(value, TensorArray)


def _as_loop_value(value: Any, like: Any = None) -> Any:
    """A loop variable as a tensor (a TensorArray stays one); Python numbers take the dtype of the one they replace."""
    if _is_tensor_array(value):
        return value
    return convert_to_tensor(value, dtype_hint=None if like is None or _is_tensor_array(like) else like.dtype)


class _LoopChecks:
    """What each iteration must keep: the loop variables' structure, dtypes and shapes (or shape invariants)."""

    def __init__(self, structure: Any, flat: list, root: str, shape_invariants: Any = None) -> None:
        self.structure, self.entering = structure, flat
        self.paths = _leaf_paths(structure, root)
        self.dtypes = [v.dtype for v in flat]
        if shape_invariants is None:
            self.shapes = [None if _is_tensor_array(v) else TensorShape(v.shape) for v in flat]
            return
        self.shapes = [TensorShape(s) for s in _flatten_up_to(structure, shape_invariants)]
        for path, value, shape in zip(self.paths, flat, self.shapes):
            if not _is_tensor_array(value) and not shape.is_compatible_with(value.shape):
                raise ValueError(
                    f"Input tensor `{path}` enters the loop with shape {value.shape}, which does not fit its shape "
                    f"invariant {shape}; give an invariant the first value fits (None where a size may change)"
                )

    def next_values(self, new: Any, iteration: int) -> list:
        """The body's results, flattened and converted, once checked against what entered the loop."""
        try:
            nest.assert_same_structure(self.structure, new, check_types=False)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"The body must return the structure of the loop variables {self.structure!r}, but returned "
                f"{new!r} after {iteration} iteration(s): {err}"
            ) from None
        flat = [_as_loop_value(v, like) for v, like in zip(nest.flatten(new), self.entering)]
        for path, value, dtype, shape, before in zip(self.paths, flat, self.dtypes, self.shapes, self.entering):
            if _is_tensor_array(value) != _is_tensor_array(before):
                raise TypeError(
                    f"Loop var {path} enters the loop as a {type(before).__name__} but is a {type(value).__name__} "
                    f"after {iteration} iteration(s); return the TensorArray that ta.write(...) gives"
                )
            if value.dtype != dtype:
                raise TypeError(
                    f"Loop var {path} enters the loop with type {dtype.name} but has type {value.dtype.name} after "
                    f"{iteration} iteration(s). {path} type should remain constant."
                )
            if shape is not None and not shape.is_compatible_with(value.shape):
                raise ValueError(
                    f"Input tensor `{path}` enters the loop with shape {shape}, but has shape {value.shape} after "
                    f"{iteration} iteration(s). To allow the shape to vary across iterations, use the "
                    "`shape_invariants` argument of tf.while_loop to specify a less-specific shape."
                )
        return flat


def _iterations_limit(maximum_iterations: Any) -> float:
    if maximum_iterations is None:
        return float("inf")
    limit = convert_to_tensor(maximum_iterations)
    if limit.shape.rank != 0:
        raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {limit.shape}")
    return int(limit)  # under mt.function a guard on its value


def while_loop(
    cond: Callable,
    body: Callable,
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` holds (at most `maximum_iterations` times),
    and return the loop variables: in the container the body last returned, as eager TensorFlow does (in that of
    `loop_vars` while `mt.function` traces, as TensorFlow's graph does).

    `loop_vars` is a tuple or list (nested as you like, dicts too) of tensors, numbers and TensorArrays; the
    numbers become tensors. Each iteration must keep every variable's dtype and shape; `shape_invariants` (the
    same structure, of TensorShapes) lets a size given as None change.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if isinstance(loop_vars, (list, tuple, dict)) and not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    limit = _iterations_limit(maximum_iterations)
    spread = isinstance(loop_vars, (list, tuple))  # cond and body take the variables as arguments
    values = nest.map_structure(_as_loop_value, loop_vars)
    checks = _LoopChecks(values, nest.flatten(values), "loop_vars", shape_invariants)
    iteration, returned = 0, values
    while iteration < limit and _truth(cond(*values) if spread else cond(values), "while_loop"):
        new = body(*values) if spread else body(values)
        if spread and not nest.is_nested(new):
            new = [new]  # one loop variable: the body may return it bare, as in TensorFlow
        iteration += 1
        values = nest.pack_sequence_as(values, checks.next_values(new, iteration))
        returned = new
    # eager TensorFlow gives the values in the container the body last returned (a tuple for `(i + 1,)` from
    # `[i]`), its graph in that of loop_vars: so does minitape, eagerly and while mt.function traces
    return nest.pack_sequence_as(returned, nest.flatten(values)) if executing_eagerly() else values


# ---- scan, foldl, foldr: a loop over the first axis of elems ---------------------------------------------------
def _slices(elems: Any, op: str) -> tuple[list, int]:
    """Each tensor of `elems` cut along its first axis, and how many slices each has."""
    flat = [convert_to_tensor(t) for t in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{op} needs at least one tensor in elems")
    for path, t in zip(_leaf_paths(elems, "elems"), flat):
        if t.shape.rank == 0:
            raise IndexError(
                f"{op}: {path} is a scalar, but {op} runs along the first axis of each tensor in elems; "
                "give a tensor of rank 1 or more (a Python list of numbers is a structure of scalars: mt.constant it)"
            )
    n = flat[0].shape[0]
    if any(t.shape[0] != n for t in flat):
        sizes = ", ".join(str(t.shape[0]) for t in flat)
        raise ValueError(f"{op}: every tensor in elems needs the same first dimension, not {sizes}")
    return [unstack(t) for t in flat], n


def _fold(fn: Callable, elems: Any, initializer: Any, reverse: bool, op: str) -> tuple[Any, dict]:
    """Run `acc = fn(acc, elems[k])` over k (from the end if `reverse`); the last acc and each step's acc by k."""
    if not callable(fn):
        raise TypeError(f"{op}: fn must be callable, e.g. lambda acc, x: acc + x; got {type(fn).__name__}")
    slices, n = _slices(elems, op)
    order = list(range(n - 1, -1, -1) if reverse else range(n))
    step_outputs: dict = {}
    if initializer is None:
        if not order:
            raise OutOfRangeError(f"{op} over zero elements needs an initializer: there is no first element to start")
        first = order.pop(0)
        acc = nest.pack_sequence_as(elems, [s[first] for s in slices])
        step_outputs[first] = acc
        root = f"elems[{first}]"
    else:
        acc = nest.map_structure(_as_loop_value, initializer)
        root = "initializer"
    checks = _LoopChecks(acc, nest.flatten(acc), root)
    for iteration, k in enumerate(order, 1):
        new = fn(acc, nest.pack_sequence_as(elems, [s[k] for s in slices]))
        acc = step_outputs[k] = nest.pack_sequence_as(acc, checks.next_values(new, iteration))
    return acc, step_outputs


def scan(
    fn: Callable,
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """Every step of `acc = fn(acc, x)` over the slices `x` of `elems` along axis 0, stacked: `scan(lambda a, x:
    a + x, [1, 2, 3])` is the running sum [1, 3, 6]. Without `initializer` the first slice starts the
    accumulator (and is the first output); `reverse=True` runs from the end, each output at its slice's place."""
    acc, step_outputs = _fold(fn, elems, initializer, bool(reverse), "scan")
    n = len(step_outputs)
    if not n:  # zero elements: empty stacks of the accumulator's dtypes and shapes
        return nest.map_structure(lambda a: zeros([0, *a.shape], a.dtype), acc)
    columns = zip(*(nest.flatten(step_outputs[k]) for k in range(n)))
    return nest.pack_sequence_as(acc, [stack(list(column)) for column in columns])


def foldl(
    fn: Callable,
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """`fn(...fn(fn(initializer, x0), x1)..., xn)` over the slices of `elems` along axis 0 (without initializer the
    first slice starts it): `foldl(lambda a, x: a * 10 + x, [1, 2, 3])` is 123."""
    return _fold(fn, elems, initializer, False, "foldl")[0]


def foldr(
    fn: Callable,
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """foldl from the last slice to the first: `foldr(lambda a, x: a * 10 + x, [1, 2, 3])` is 321."""
    return _fold(fn, elems, initializer, True, "foldr")[0]
