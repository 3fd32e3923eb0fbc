"""The opt-in numerics check: it stops at the first op producing NaN or inf, forward or backward, and names it."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import minitape as mt
from minitape.aids import numerics
from minitape.engine.where import format_where
from minitape.values.errors import InvalidArgumentError

HERE = os.path.basename(__file__)


@pytest.fixture(autouse=True)
def check_is_off_afterwards():
    yield
    mt.debugging.disable_check_numerics()
    assert not numerics.is_on()


def naive_softplus(z):
    return mt.math.log(mt.exp(z) + 1.0)


def test_forward_stops_at_the_first_op_and_names_it_with_its_inputs():
    z = mt.constant(100.0)
    mt.debugging.enable_check_numerics()
    with mt.GradientTape() as tape:
        tape.watch(z)
        with pytest.raises(InvalidArgumentError) as caught:
            naive_softplus(z)  # exp(100) overflows float32; AddV2 and Log would give inf too
    message = str(caught.value)
    assert message.startswith("check_numerics: Exp produced inf in the forward pass")
    assert "input 0: float32[] = 100." in message
    assert f"{HERE}:" in message
    assert [op.type for op in tape.records] == []  # it stopped before recording Exp


def test_forward_nan_names_the_op_and_the_user_line():
    x = mt.constant([1.0, -1.0, 4.0])
    with mt.debugging.check_numerics_scope():
        with pytest.raises(InvalidArgumentError) as caught:
            line = sys._getframe().f_lineno + 1
            mt.sqrt(x) * 2.0
    message = str(caught.value)
    assert "Sqrt produced NaN in the forward pass" in message
    assert f"(called from {HERE}:{line})" in message
    assert "float32[3] = [ 1. -1.  4.]" in message


def test_backward_names_the_forward_op_whose_gradient_made_the_nan():
    z = mt.constant(100.0)
    with mt.GradientTape() as tape:
        tape.watch(z)
        y = naive_softplus(z)
    assert np.isinf(y.numpy())  # unchecked, the forward pass overflows quietly...
    with mt.debugging.check_numerics_scope():
        with pytest.raises(InvalidArgumentError) as caught:
            tape.gradient(y, z)  # ...and the backward pass makes 0 * inf = NaN in Exp's gradient
    message = str(caught.value)
    assert message.startswith("check_numerics: Mul produced NaN in the backward pass")
    assert "computing the gradient of Exp" in message
    exp_line = naive_softplus.__code__.co_firstlineno + 1  # the user's line of code that ran Exp
    assert f"that Exp ran at {HERE}:{exp_line}" in message
    assert "input 0: float32[] = 0.; input 1: float32[] = inf" in message
    assert "already NaN or inf" in message and "custom_gradient" in message


def test_without_the_check_the_naive_gradient_is_nan_and_the_custom_one_is_fine():
    @mt.custom_gradient
    def softplus(z):
        e = mt.exp(-mt.abs(z))

        def grad(dy):
            return dy * mt.sigmoid(z)

        return mt.maximum(z, 0.0) + mt.math.log1p(e), grad

    z = mt.constant(100.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(z)
        naive = naive_softplus(z)
        stable = softplus(z)
    assert np.isnan(tape.gradient(naive, z).numpy())
    with mt.debugging.check_numerics_scope():  # the stable version passes the check both ways
        assert tape.gradient(stable, z).numpy() == 1.0
        assert softplus(z).numpy() == 100.0


def test_the_scope_restores_the_previous_state():
    with mt.debugging.check_numerics_scope():
        assert numerics.is_on()
    assert not numerics.is_on()
    mt.debugging.enable_check_numerics()
    with mt.debugging.check_numerics_scope():
        pass
    assert numerics.is_on()
    mt.debugging.disable_check_numerics()
    assert not numerics.is_on()
    assert np.isinf(mt.exp(mt.constant(100.0)).numpy())  # off again: inf is just a value


def test_check_numerics_on_one_tensor():
    good = mt.constant([1.0, 2.0])
    assert mt.debugging.check_numerics(good, "weights") is good
    with pytest.raises(InvalidArgumentError, match="weights: tensor had NaN or inf values"):
        mt.debugging.check_numerics(mt.constant([1.0, np.nan]), "weights")


def test_a_notebook_cell_is_named_as_such_in_messages():
    assert format_where(("/tmp/ipykernel_4242/3672784403.py", 4)) == "line 4 of its cell"
    assert format_where(("/home/me/train.py", 12)) == "train.py:12"
    assert format_where(None) == "an unknown line"
