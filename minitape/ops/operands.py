"""The public binary math functions (`mt.add`, `mt.math.multiply`, ...) with TensorFlow's conversion order.

With no tensor among the operands, a numpy array (or numpy scalar) is converted first and keeps its dtype, so a
Python number then joins it: `mt.math.multiply(np.ones([3, 3]), 42)` is float64, as in TensorFlow. Tensor
operators (`x * y`) always have a tensor and call the ops directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.ops import api
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike


def _numpy_operands(op: Callable, public_name: str) -> Callable[..., Tensor]:
    def run(x: Any, y: Any, name: str | None = None) -> Tensor:
        if not isinstance(x, TensorLike) and not isinstance(y, TensorLike):
            if isinstance(x, (np.ndarray, np.generic)):
                x = convert_to_tensor(x)
            elif isinstance(y, (np.ndarray, np.generic)):
                y = convert_to_tensor(y)
        return op(x, y)

    run.__name__, run.__doc__ = public_name, op.__doc__
    return run


add = _numpy_operands(api.add, "add")
subtract = _numpy_operands(api.subtract, "subtract")
multiply = _numpy_operands(api.multiply, "multiply")
divide = _numpy_operands(api.divide, "divide")
maximum = _numpy_operands(api.maximum, "maximum")
minimum = _numpy_operands(api.minimum, "minimum")
pow = _numpy_operands(api.pow, "pow")
floordiv = _numpy_operands(api.floordiv, "floordiv")
floormod = _numpy_operands(api.floormod, "floormod")
