"""Second side-by-side run against TensorFlow 2.21 (1,676 math snippets): what minitape got wrong.

Silent garbage first (a number where TensorFlow refuses), then values at the edges, then
what TensorFlow accepts. Each expectation below is TensorFlow's behaviour, written down here.
"""

import numpy as np
import pytest

import minitape as mt

ERROR = (TypeError, ValueError, mt.errors.InvalidArgumentError)


# ---- dtypes TensorFlow has no kernel for: numpy would wrap round or compute a meaningless number -------------
@pytest.mark.parametrize(
    "call, match",
    [
        # TF: Reciprocal has no integer CPU kernel (NotFoundError); numpy gave 1/0 = -2147483648
        (lambda: mt.math.reciprocal(mt.constant([1, 0])), "floating-point"),
        # TF: Neg, Abs, Sign and Pow have no unsigned kernels; numpy gave -1 = 255
        (lambda: -mt.constant([1, 5], mt.uint8), "uint8"),
        (lambda: mt.abs(mt.constant([1], mt.uint32)), "uint32"),
        (lambda: mt.sign(mt.constant([1], mt.uint64)), "uint64"),
        (lambda: mt.constant([5, 200], mt.uint8) ** 2, "uint8"),
        # TF: Floor, Ceil, IsNan, IsFinite, IsInf take floats only
        (lambda: mt.floor(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.ceil(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_nan(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_finite(mt.constant([1, 2])), "floating-point"),
        (lambda: mt.math.is_inf(mt.constant([1, 2])), "floating-point"),
    ],
)
def test_ops_without_a_tensorflow_kernel_for_the_dtype_are_refused(call, match):
    with pytest.raises(ERROR, match=match):
        call()


def test_square_of_uint8_stays_allowed_as_in_tensorflow():
    assert mt.square(mt.constant([3], mt.uint8)).numpy().tolist() == [9]  # TF: uint8 [9]
