"""Fused primitives on the training path: one record where a composite made several, same values and derivatives."""

import numpy as np

import minitape as mt
from minitape.aids.check_gradients import check_gradients

rng = np.random.default_rng(7)
LOGITS = rng.normal(size=(4, 5)) * 2
LABELS = np.array([0, 4, 2, 2])


def sparse_xent(x, labels=LABELS):
    return mt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)


def test_sparse_cross_entropy_is_one_record_each_way():
    logits = mt.constant(LOGITS)
    with mt.GradientTape(persistent=True) as outer:
        outer.watch(logits)
        with mt.GradientTape() as inner:
            inner.watch(logits)
            loss = mt.reduce_sum(sparse_xent(logits))
        grad = inner.gradient(loss, logits)
    assert [op.type for op in inner.records] == ["SparseSoftmaxCrossEntropyWithLogits", "Sum"]
    backward_ops = [op.type for op in outer.records[2:]]
    # the gradient is made from the softmax the forward kept: no exp or softmax is computed again
    assert "SparseSoftmaxCrossEntropyWithLogitsGrad" in backward_ops
    assert not {"Exp", "Softmax"} & set(backward_ops), backward_ops
    probs = np.exp(LOGITS) / np.exp(LOGITS).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(grad.numpy(), probs - np.eye(5)[LABELS])


def test_sparse_cross_entropy_third_derivatives_and_batch_shapes():
    check_gradients(sparse_xent, [LOGITS], order=3)
    check_gradients(lambda x: sparse_xent(x, LABELS.reshape(2, 2)), [LOGITS.reshape(2, 2, 5)], order=2)
    check_gradients(lambda x: sparse_xent(x, np.int64(3)) * x[0], [LOGITS[0]], order=2)


def test_sparse_cross_entropy_stays_finite_for_an_impossible_class():
    # log_softmax is -inf at a -inf logit; a product with a one-hot made 0 * -inf = NaN there
    loss = sparse_xent(mt.constant([[0.0, -np.inf, 1.0]]), labels=[0])
    np.testing.assert_allclose(loss.numpy(), [np.log(1 + np.e)])


def test_keras_sparse_loss_from_logits_uses_the_fused_op():
    logits = mt.constant(LOGITS)
    with mt.GradientTape() as tape:
        tape.watch(logits)
        loss = mt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS.astype(np.float32), logits)
    assert "SparseSoftmaxCrossEntropyWithLogits" in [op.type for op in tape.records]
    log_probs = LOGITS - np.log(np.exp(LOGITS).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -log_probs[np.arange(4), LABELS].mean())


def test_matmul_gradient_is_one_matmul_per_operand_for_every_transpose_flag():
    from minitape.ops.math_ops import matmul

    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))
    for ta in (False, True):
        for tb in (False, True):
            left = np.swapaxes(a, -1, -2) if ta else a  # stored transposed, so the product is the same
            right = b.T if tb else b
            np.testing.assert_allclose(matmul(left, right, transpose_a=ta, transpose_b=tb).numpy(), a @ b)
            check_gradients(lambda x, y, ta=ta, tb=tb: matmul(x, y, transpose_a=ta, transpose_b=tb), [left, right], 2)
    w = mt.constant(b)
    with mt.GradientTape() as outer:
        outer.watch(w)
        with mt.GradientTape() as inner:
            inner.watch(w)
            y = mt.reduce_sum(mt.square(mt.constant(a[0]) @ w))
        inner.gradient(y, w)
    # the gradient for w is a^T g: one MatMul with transpose_a, no MatrixTranspose
    assert [op.type for op in outer.records if op.backward_of == "MatMul"] == ["MatMul"]


def test_relu_gradient_is_one_record_and_its_derivative_is_the_same_mask():
    x = rng.normal(size=(3, 4))
    check_gradients(lambda t: mt.nn.relu(t) * t, [x], order=3)
    t = mt.constant(x)
    with mt.GradientTape() as outer:
        outer.watch(t)
        with mt.GradientTape() as inner:
            inner.watch(t)
            y = mt.reduce_sum(mt.nn.relu(t) * t)
        g = inner.gradient(y, t)
    assert "ReluGrad" in [op.type for op in outer.records] and "Greater" not in [op.type for op in outer.records]
    np.testing.assert_allclose(outer.gradient(g, t).numpy(), 2.0 * (x > 0))


def test_third_derivative_through_a_broadcast_bias():
    # the gradient of SumToShape is a BroadcastTo of one input (its shape an attribute, not a second input)
    b, x = mt.constant(np.arange(4.0)), mt.constant(np.ones((3, 4)))
    with mt.GradientTape() as t3:
        t3.watch(b)
        with mt.GradientTape() as t2:
            t2.watch(b)
            with mt.GradientTape() as t1:
                t1.watch(b)
                y = mt.reduce_sum((x + b) ** 3)
            z = mt.reduce_sum(t1.gradient(y, b) * b)  # 9 (1 + b)^2 b
        g2 = t2.gradient(z, b)  # 9 (1 + b)^2 + 18 (1 + b) b
    np.testing.assert_allclose(t3.gradient(g2, b).numpy(), 36 * (1 + np.arange(4.0)) + 18 * np.arange(4.0))
    check_gradients(lambda t: mt.broadcast_to(t, (2, 3, 4)) * 2.0, [rng.normal(size=(3, 1))], order=2)
