"""Neural-network ops: activations, softmax, and the losses built from them."""

from __future__ import annotations

import numpy as np

from minitape.engine.execute import NOT_FLOATING
from minitape.engine.opdef import defop
from minitape.engine.tensor import Tensor
from minitape.ops.array_ops import gather_op, reshape
from minitape.ops.math_ops import cast, exp, log1p, sigmoid, where, zeros_like
from minitape.ops.options import integer
from minitape.ops.reduce_ops import _logsumexp, reduce_sum
from minitape.values.convert import as_array as _plain
from minitape.values.convert import convert_to_tensor
from minitape.values.errors import InvalidArgumentError
from minitape.values.tensor_like import TensorLike


def _softmax(a, axis):
    if a.dtype.kind != "f":
        raise TypeError(NOT_FLOATING.format(a.dtype.name))
    if not a.size:  # an empty tensor: an empty softmax, as in TensorFlow (numpy's max has nothing to start from)
        return a.copy()
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(a, axis):
    if a.dtype.kind != "f":
        raise TypeError(NOT_FLOATING.format(a.dtype.name))
    return a - _logsumexp(a, axis, keepdims=True)


def _softmax_rule(op, g):  # dx = z * (dy - sum(dy * z))
    z, axis = op.outputs[0], op.attrs["axis"]
    return z * (g - reduce_sum(g * z, axis=axis, keepdims=True))


def _log_softmax_rule(op, g):  # dx = dy - softmax(x) * sum(dy)
    z, axis = op.outputs[0], op.attrs["axis"]
    return g - exp(z) * reduce_sum(g, axis=axis, keepdims=True)


def _numeric(a, op):
    """`a` itself, if it is a number tensor: TensorFlow has no bool kernel for `op` (numpy would compute one)."""
    if a.dtype.kind == "b":
        raise TypeError(f"{op} needs numeric tensors, not bool: cast first, e.g. mt.cast(x, mt.float32)")
    return a


# fmt: off
relu        = defop("Relu",       lambda a: np.maximum(_numeric(a, "relu"), 0), lambda op, g: relu_grad(g, op.z),
                    keep="outputs")
# dy * [z > 0] as one op (not Greater, Cast, Mul); its own derivative: the same mask for dy, 0 for z (a step)
relu_grad   = defop("ReluGrad",   lambda g, z: g * (z > 0),
                    lambda op, dy: (relu_grad(dy, op.y) if op.needs[0] else None,
                                    zeros_like(op.y) if op.needs[1] else None),  # zeros, not None: as TensorFlow
                    keep="inputs", same_dtype=(0, 1))
elu         = defop("Elu",        lambda a: np.where(a > 0, a, np.expm1(np.minimum(a, 0))),  # elu' = 1, or e^x = z + 1
                    lambda op, g: where(op.z < 0, g * (op.z + 1), g), keep="outputs", floating=True)  # 1 at 0
softplus    = defop("Softplus",   lambda a: np.logaddexp(0, a), lambda op, g: g * sigmoid(op.x),  # sigmoid
                    keep="inputs", floating=True)
_softmax_op = defop("Softmax",    _softmax,                     _softmax_rule,                       keep="outputs")
_lsm_op     = defop("LogSoftmax", _log_softmax, _log_softmax_rule,  keep="outputs")
one_hot_op  = defop("OneHot", lambda i, depth, on, off, dtype: np.where(np.arange(depth) == i[..., None], on, off)
                    .astype(dtype.as_numpy_dtype), None, dtype_from=None)
# fmt: on


def _softmax_axis(op_name, logits, axis):
    axis = -1 if axis is None else integer(axis, op_name, "axis")
    shape = np.shape(_plain(logits))
    if not -len(shape) <= axis < len(shape):
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for logits of shape {list(shape)}; "
            f"use an axis in [{-len(shape)}, {len(shape)})"
        )
    return axis


def softmax(logits, axis=None, name=None):
    """exp(x) / sum(exp(x)) along `axis` (default: the last)."""
    return _softmax_op(logits, axis=_softmax_axis("softmax", logits, axis))


def log_softmax(logits, axis=None, name=None):
    """x - logsumexp(x) along `axis`: the log of softmax, computed without overflow."""
    return _lsm_op(logits, axis=_softmax_axis("log_softmax", logits, axis))


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A `depth`-long vector per index, on_value at the index and off_value elsewhere.

    The dtype is TensorFlow's: `dtype` if given, else that of on_value or off_value (5 makes int32, a float64
    tensor float64, True bool), else float32.
    """
    on, off, dtype = _one_hot_values(on_value, off_value, dtype)
    plain = _plain(indices)
    if isinstance(indices, np.ndarray) and plain.dtype.kind == "f" and np.all(plain == np.round(plain)):
        indices = plain.astype(np.int64)  # numpy floats holding whole numbers, as TensorFlow converts them
    elif plain.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, not {plain.dtype}; cast them with mt.cast")
    rank = np.ndim(_plain(indices)) + 1
    if axis is not None and not -1 <= axis < rank:
        raise InvalidArgumentError(
            f"one_hot: axis {axis} is out of range for a result of rank {rank}; use -1..{rank - 1}"
        )
    depth = integer(depth, "one_hot", "depth")
    if depth < 0:
        raise InvalidArgumentError(f"one_hot: depth must be non-negative, got {depth}")
    result = one_hot_op(indices, depth=depth, on=on, off=off, dtype=dtype)
    if axis is None or axis == -1:
        return result
    from minitape.ops.array_ops import transpose

    rank = len(result.shape)
    perm = list(range(rank - 1))
    perm.insert(axis % rank, rank - 1)  # the new one-hot axis goes to position `axis`
    return transpose(result, perm=perm)


def _one_hot_values(on_value, off_value, dtype):
    """(on, off, dtype) for one_hot: the values as numpy scalars of one dtype, refused if they disagree."""
    from minitape.values.dtypes import as_dtype, float32

    dtype = None if dtype is None else as_dtype(dtype)
    given = {}
    for what, value in (("on_value", on_value), ("off_value", off_value)):
        if value is None:
            continue
        try:
            given[what] = convert_to_tensor(value, dtype_hint=dtype)
        except (TypeError, ValueError):
            given[what] = convert_to_tensor(value)
        if given[what].shape.rank != 0:
            raise InvalidArgumentError(f"one_hot: {what} must be a scalar, but got shape {list(given[what].shape)}")
    for what, value in given.items():
        if dtype is not None and value.dtype != dtype:
            raise TypeError(
                f"one_hot: {what} {value.numpy().item()!r} has dtype {value.dtype.name}, which does not match "
                f"dtype={dtype.name}; give the value as {dtype.name} (e.g. mt.constant(v, mt.{dtype.name})) "
                "or leave dtype out to take the values' dtype"
            )
    if len(given) == 2 and given["on_value"].dtype != given["off_value"].dtype:
        on, off = given["on_value"].dtype.name, given["off_value"].dtype.name
        raise TypeError(
            f"one_hot: on_value has dtype {on} but off_value has dtype {off}; give both as one dtype, "
            "e.g. on_value=1.0, off_value=0.0 for float32"
        )
    dtype = dtype or next((v.dtype for v in given.values()), float32)
    if dtype.is_bool and len(given) < 2:
        raise TypeError(
            "one_hot: a bool result needs both on_value and off_value given as bools (e.g. on_value=True, "
            "off_value=False): the defaults 1 and 0 are not bools, and TensorFlow refuses them too"
        )
    values = [given[w].numpy() if w in given else np.asarray(d) for w, d in (("on_value", 1), ("off_value", 0))]
    return values[0], values[1], dtype


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-example -log softmax(logits)[label]; labels are class indices."""
    if labels is None or logits is None:
        raise ValueError("pass both labels= and logits= by keyword, as in TensorFlow")
    lab, lg = _plain(labels), _plain(logits)
    if lab.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: labels must be integers, not {lab.dtype}"
        )
    if lg.ndim == 0:
        raise InvalidArgumentError(
            "sparse_softmax_cross_entropy_with_logits: logits must have a last axis of classes, not be a scalar; "
            "for one example, pass logits of shape (classes,) and a scalar label"
        )
    if lab.shape != lg.shape[:-1]:
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: labels of shape {lab.shape} do not fit logits of shape "
            f"{lg.shape}; labels need the logits' shape without its last axis, {lg.shape[:-1]}"
        )
    depth = lg.shape[-1]
    # as unsigned, a negative label is huge: one maximum finds a label outside the range on either side
    if lab.size and np.maximum.reduce(lab.astype(np.uint64), axis=None) >= depth:
        bad = lab[(lab < 0) | (lab >= depth)].ravel()[0]
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: label {bad} is outside the valid range [0, {depth})"
        )
    return _sparse_xent_op(logits, labels)[0]


# The loss and its gradient as primitives: one op each way instead of the eight that log_softmax, a one-hot
# product, a sum and a negation make forward and backward. TensorFlow fuses it too.
def _shifted(logits):
    """logits minus each row's maximum (where finite), so that exp cannot overflow."""
    top = np.maximum.reduce(logits, axis=-1, keepdims=True)  # the ufunc itself: np.max's wrapper costs more
    if not np.isfinite(top).all():
        top = np.where(np.isfinite(top), top, 0)
    return logits - top


def _label_positions(labels, classes):
    """Each example's label as an index into its logits flattened: the row's start plus the label.

    One index array into a flat view costs less than a pair of them (rows, labels) into a matrix.
    """
    return np.arange(0, labels.size * classes, classes) + labels.ravel()


def _sparse_xent(logits, labels):
    """(-log softmax(logits)[label], softmax(logits)): the loss, and the softmax its gradient is made of.

    Like TensorFlow's kernel, the forward computes the softmax once and keeps it, so the backward pass
    needs no second exp.
    """
    if logits.dtype.kind != "f":
        raise TypeError(NOT_FLOATING.format(logits.dtype.name))
    shifted = _shifted(logits)
    e = np.exp(shifted)
    total = np.add.reduce(e, axis=-1, keepdims=True)
    picked = shifted.reshape(-1)[_label_positions(labels, shifted.shape[-1])].reshape(labels.shape)
    return np.log(total[..., 0]) - picked, e / total  # log-sum-exp form: finite where softmax saturates


def _sparse_xent_backprop(g, p, labels):
    """g[..., None] * (p - one_hot(labels)): the loss's gradient for the logits, from the kept softmax p."""
    grad = p.copy()  # C order, so reshape(-1) is a view: the subtraction lands in grad
    grad.reshape(-1)[_label_positions(labels, grad.shape[-1])] -= 1
    grad *= g[..., None]
    return grad


def _sparse_xent_rule(op, g_loss, g_p):
    """dlogits = g (p - one_hot), plus, where the softmax output itself got a gradient, its softmax VJP."""
    if not op.needs[0]:
        return None, None
    p = op.outputs[1]
    d_logits = _sparse_xent_backprop_op(g_loss, p, op.y)
    if np.count_nonzero(_plain(g_p)):  # only a higher-order pass sends a gradient to p: skip the zeros otherwise
        d_logits = d_logits + p * (g_p - reduce_sum(g_p * p, axis=-1, keepdims=True))
    return d_logits, None


def _sparse_xent_backprop_rule(op, dy):
    """The gradient op is linear in g and in p: dg = sum(dy (p - one_hot)) over the classes, dp = dy g."""
    g, p, labels = op.inputs
    d_g = d_p = None
    if op.needs[0]:
        eye = Tensor(np.eye(op.input_shapes[1][-1], dtype=p._value.dtype))  # shape-only: a constant in a graph
        one_hot_labels = gather_op(eye, labels, axis=0)  # an op, so that a traced graph picks each call's labels
        d_g = reduce_sum(dy * (p - one_hot_labels), axis=-1)
    if op.needs[1]:
        d_p = dy * reshape(g, (*op.input_shapes[0], 1))
    return d_g, d_p, None


# fmt: off
_sparse_xent_op          = defop("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent, _sparse_xent_rule,
                                 keep="both", same_dtype=None, n_outputs=2)
_sparse_xent_backprop_op = defop("SparseSoftmaxCrossEntropyWithLogitsGrad", _sparse_xent_backprop,
                                 _sparse_xent_backprop_rule, keep="inputs", same_dtype=(0, 1))
# fmt: on


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example -sum(labels * log softmax(logits)); labels are probabilities.

    As TensorFlow's fused kernel: the gradient for the logits is softmax(logits) - labels, which is the
    derivative only when each row of labels sums to 1 (a distribution, as TensorFlow documents it). For
    multi-hot labels or rows that sum to something else, the formula's own derivative would be
    sum(labels) softmax(logits) - labels; TensorFlow (and so minitape) trains with p - labels anyway. The
    gradient for the labels is -log softmax(logits).
    """
    label_shape, logit_shape = np.shape(_plain(labels)), np.shape(_plain(logits))
    if label_shape != logit_shape:
        raise ValueError(
            f"softmax_cross_entropy_with_logits: labels of shape {list(label_shape)} do not fit logits of shape "
            f"{list(logit_shape)}; labels must be one probability per class, of the logits' shape (for class "
            "indices use sparse_softmax_cross_entropy_with_logits)"
        )
    rank = len(logit_shape)
    axis = int(_plain(axis)) % rank if rank else 0
    if rank and axis != rank - 1:  # the kernel works on the last axis: move the classes there, as TensorFlow does
        from minitape.ops.array_ops import transpose

        perm = [i for i in range(rank) if i != axis] + [axis]
        return _xent_op(transpose(logits, perm), transpose(labels, perm))[0]
    return _xent_op(logits, labels)[0]


def _xent(logits, labels):
    """(the loss per example, softmax(logits) - labels): the two outputs of TensorFlow's kernel."""
    if logits.dtype.kind != "f":
        raise TypeError(NOT_FLOATING.format(logits.dtype.name))
    shifted = _shifted(logits)
    e = np.exp(shifted)
    total = np.add.reduce(e, axis=-1, keepdims=True)
    log_p = shifted - np.log(total)
    return -np.add.reduce(labels * log_p, axis=-1), e / total - labels


def _xent_rule(op, g_loss, g_backprop):
    """TensorFlow's rule: dlogits = g (p - labels), plus the softmax's VJP of a gradient that reached the second
    output (only a higher-order pass sends one); dlabels = -g log softmax(logits)."""
    logits = op.x
    g = reshape(g_loss, (*op.input_shapes[0][:-1], 1))
    d_logits = d_labels = None
    if op.needs[0]:
        d_logits = g * op.outputs[1]
        if np.count_nonzero(_plain(g_backprop)):
            p = softmax(logits)
            d_logits = d_logits + p * (g_backprop - reduce_sum(g_backprop * p, axis=-1, keepdims=True))
    if op.needs[1]:
        d_labels = -g * log_softmax(logits)
    return d_logits, d_labels


_xent_op = defop(
    "SoftmaxCrossEntropyWithLogits", _xent, _xent_rule, keep="both", same_dtype=(0, 1), n_outputs=2, floating=True
)


def check_same_shape(what, labels, logits):
    """Refuse labels and logits of different shapes: broadcasting (4,) against (4, 1) would train on a (4, 4) loss."""
    label_shape, logit_shape = np.shape(_plain(labels)), np.shape(_plain(logits))
    if label_shape != logit_shape:
        raise ValueError(
            f"{what}: logits and labels must have the same shape ({list(logit_shape)} vs {list(label_shape)}); "
            f"reshape one, e.g. mt.reshape(labels, {list(logit_shape)})"
        )


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-element binary cross-entropy of sigmoid(logits), as max(x,0) - x*z + log(1+e^-|x|).

    Both halves choose with x >= 0, as TensorFlow's do, so at x = 0 the gradient is sigmoid(0) - z = 0.5 - z
    (abs and maximum would give their own one-sided slopes there: 1 - z, wrong for zero-initialised weights).
    """
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: pass both labels= and logits=, as in TensorFlow")
    check_same_shape("sigmoid_cross_entropy_with_logits", labels, logits)
    logits = convert_to_tensor(logits)
    positive = logits >= 0
    return where(positive, logits, 0) - logits * labels + log1p(exp(where(positive, -logits, logits)))


def silu(features, beta=1.0):  # no name: TensorFlow's silu has none
    """x * sigmoid(beta x), also called swish."""
    return features * sigmoid(features * beta)


swish = silu


def leaky_relu(features, alpha=0.2, name=None):
    """x where x > 0, else alpha x (for any alpha, as TensorFlow: not max(x, alpha x), which differs for alpha > 1).

    Integers are cast to float32 first, as TensorFlow does (-1 gives -0.2).
    """
    features = convert_to_tensor(features)
    if features.dtype.is_integer:
        features = cast(features, "float32")
    return where(features > 0, features, features * alpha)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, of a floating-point tensor (TensorFlow has no integer kernel: 5 // 2 would be 2)."""
    t = t if isinstance(t, TensorLike) else convert_to_tensor(t)
    if not t.dtype.is_floating:
        raise TypeError(f"l2_loss {NOT_FLOATING.format(t.dtype.name)}")
    return reduce_sum(t * t) / 2
