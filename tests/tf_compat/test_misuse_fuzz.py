"""Every public op given odd inputs either answers or raises a clear error: never a bare Python error nor
numpy's own words (which name no op and say nothing of how to fix the call).

The grid is the one run side by side with TensorFlow 2.21 for issue 24; the tests that compare answers and
messages with TensorFlow's are in test_misuse_ops.py. Here only the kind of failure is checked.
"""

import numpy as np
import pytest

import minitape as mt

ODD_INPUTS = {
    "bool": lambda: mt.constant([True, False]),
    "int32": lambda: mt.constant([1, 2]),
    "uint8": lambda: mt.constant([1, 2], mt.uint8),
    "float64": lambda: mt.constant([1.0, 2.0], mt.float64),
    "empty": lambda: mt.zeros([0]),
    "scalar": lambda: mt.constant(2.0),
    "None": lambda: None,
    "dict": lambda: {"a": 1.0},
    "set": lambda: {1.0, 2.0},
    "generator": lambda: (i for i in range(3)),
    "text": lambda: "ab",
    "ragged": lambda: [[1.0, 2.0], [3.0]],
    "numpy int64": lambda: np.array([1, 2]),
    "bool and int": lambda: [True, 2],
    "nan": lambda: [float("nan"), 1.0],
}

F = mt.constant([1.0, 2.0])
OPS = {name: (lambda f: lambda a: f(a))(getattr(mt, name)) for name in "abs exp sqrt square sign round tanh".split()}
OPS.update({f"math.{n}": (lambda f: lambda a: f(a))(getattr(mt.math, n)) for n in "log ceil erf softplus".split()})
OPS.update({f"{n}(F, a)": (lambda f: lambda a: f(F, a))(getattr(mt, n)) for n in "add divide pow equal less".split()})
OPS.update({f"{n}(a, a)": (lambda f: lambda a: f(a, a))(getattr(mt, n)) for n in "multiply maximum greater".split()})
OPS.update(
    {
        "reduce_sum": lambda a: mt.reduce_sum(a),
        "reduce_max": lambda a: mt.reduce_max(a),
        "reduce_std": lambda a: mt.math.reduce_std(a),
        "argmax": lambda a: mt.argmax(a),
        "matmul": lambda a: mt.matmul(a, a),
        "reshape": lambda a: mt.reshape(a, [-1]),
        "reshape to a": lambda a: mt.reshape(F, a),
        "transpose": lambda a: mt.transpose(a),
        "concat": lambda a: mt.concat([a, a], 0),
        "stack": lambda a: mt.stack([a, a]),
        "cast": lambda a: mt.cast(a, mt.float32),
        "constant": lambda a: mt.constant(a),
        "Variable": lambda a: mt.Variable(a),
        "assign": lambda a: mt.Variable([1.0, 2.0]).assign(a),
        "zeros_like": lambda a: mt.zeros_like(a),
        "shape": lambda a: mt.shape(a),
        "expand_dims": lambda a: mt.expand_dims(a, 0),
        "tile": lambda a: mt.tile(a, [2]),
        "gather": lambda a: mt.gather(F, a),
        "one_hot": lambda a: mt.one_hot(a, 3),
        "softmax": lambda a: mt.nn.softmax(a),
        "relu": lambda a: mt.nn.relu(a),
        "l2_loss": lambda a: mt.nn.l2_loss(a),
        "cumsum": lambda a: mt.math.cumsum(a),
        "clip_by_value": lambda a: mt.clip_by_value(a, 0, 1),
        "where(a)": lambda a: mt.where(a),
        "where(a, F, F)": lambda a: mt.where(a, F, F),
        "boolean_mask": lambda a: mt.boolean_mask(F, a),
        "range": lambda a: mt.range(a),
        "zeros": lambda a: mt.zeros(a),
        "fill": lambda a: mt.fill(a, 1.0),
        "eye": lambda a: mt.eye(a),
        "random.normal": lambda a: mt.random.normal(a),
        "index": lambda a: F[a],
        "sort": lambda a: mt.sort(a),
        "top_k": lambda a: mt.math.top_k(a, 1),
        "norm": lambda a: mt.norm(a),
        "einsum": lambda a: mt.einsum("i,i->", a, a),
        "tensordot": lambda a: mt.tensordot(a, a, 1),
        "add_n": lambda a: mt.add_n([a, a]),
        "linspace": lambda a: mt.linspace(a, a, 3),
        "split": lambda a: mt.split(a, 2),
        "pad": lambda a: mt.pad(a, [[1, 1]]),
        "conv2d strides": lambda a: mt.nn.conv2d(mt.ones([1, 3, 3, 1]), mt.ones([2, 2, 1, 1]), a, "SAME"),
        "max_pool2d ksize": lambda a: mt.nn.max_pool2d(mt.ones([1, 3, 3, 1]), a, 1, "SAME"),
        "output_gradients": lambda a: _gradient_seeded_with(a),
        "linalg.inv": lambda a: mt.linalg.inv(a),
        "linalg.det": lambda a: mt.linalg.det(a),
        "linalg.matvec": lambda a: mt.linalg.matvec(mt.ones([2, 2]), a),
        "linalg.diag": lambda a: mt.linalg.diag(a),
        "nn.sigmoid_cross_entropy": lambda a: mt.nn.sigmoid_cross_entropy_with_logits(labels=a, logits=F),
        "nn.sparse_softmax_cross_entropy": lambda a: mt.nn.sparse_softmax_cross_entropy_with_logits(
            labels=a, logits=mt.ones([2, 3])
        ),
        "nn.dropout": lambda a: mt.nn.dropout(a, 0.5),
        "nn.moments": lambda a: mt.nn.moments(a, [0]),
        "math.reduce_logsumexp": lambda a: mt.math.reduce_logsumexp(a),
        "math.count_nonzero": lambda a: mt.math.count_nonzero(a),
        "squeeze": lambda a: mt.squeeze(a),
        "reverse": lambda a: mt.reverse(a, [0]),
        "gather_nd": lambda a: mt.gather_nd(F, a),
        "scatter_nd": lambda a: mt.scatter_nd([[0]], a, [2]),
        "broadcast_to": lambda a: mt.broadcast_to(a, [2, 2]),
        "random.uniform": lambda a: mt.random.uniform(a),
        "ones_like": lambda a: mt.ones_like(a),
        "size": lambda a: mt.size(a),
        "unstack": lambda a: mt.unstack(a),
        "tape.watch": lambda a: _watched(a),
        "tape.gradient source": lambda a: mt.GradientTape().gradient(F, a),
        "ForwardAccumulator tangent": lambda a: mt.autodiff.ForwardAccumulator(F, a),
        "Variable.assign_add": lambda a: mt.Variable([1.0, 2.0]).assign_add(a),
        "Variable.scatter_nd_update": lambda a: mt.Variable([1.0, 2.0]).scatter_nd_update([[0]], a),
        "convert_to_tensor": lambda a: mt.convert_to_tensor(a),
    }
)


def _watched(value):
    with mt.GradientTape() as tape:
        tape.watch(value)


def _gradient_seeded_with(seed):
    with mt.GradientTape() as tape:
        tape.watch(F)
        y = F * 2.0
    return tape.gradient(y, F, output_gradients=seed)


NUMPY_WORDS = (
    "inhomogeneous",
    "setting an array element",
    "zero-size array",
    "empty sequence",
    "negative dimensions are not allowed",
    "could not convert",
    "unsupported operand",
    "bad operand",
    "is not iterable",
    "has no attribute",
    "division by zero",
    "dtype object",
)
CLEAR = (ValueError, TypeError, NotImplementedError)  # InvalidArgumentError is a ValueError, as in TensorFlow


@pytest.mark.filterwarnings("ignore::UserWarning")  # watching an int tensor warns, as TensorFlow's does
@pytest.mark.parametrize("op", sorted(OPS))
def test_odd_inputs_give_an_answer_or_a_clear_error(op):
    unclear = []
    for name, make in ODD_INPUTS.items():
        try:
            OPS[op](make())
        except CLEAR as err:
            words = [w for w in NUMPY_WORDS if w in str(err)]
            if words:
                unclear.append(f"{name}: {type(err).__name__}: {err} (numpy's words: {words})")
        except Exception as err:  # noqa: BLE001 - any other exception is the bug this test looks for
            unclear.append(f"{name}: a bare {type(err).__name__}: {err}")
    assert not unclear, f"{op} given odd inputs:\n" + "\n".join(unclear)
