"""Keras masks: Embedding(mask_zero=True) and Masking make them, `_keras_mask` carries them, layers pass them on or
drop them, and the consumers honour them (SimpleRNN, LSTM, GRU, Bidirectional, GlobalAveragePooling1D, the
attention layers, losses and metrics in fit), with the numbers Keras 3.15 (TensorFlow 2.21) gives; gradients
through masked recurrences against finite differences; traced replays on other padding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


def padded_steps() -> np.ndarray:
    """(3, 4, 2) sequences with all-zero steps: example 0 ends after 2 steps, example 1 after 3, example 2 has a
    gap at step 1."""
    x = np.arange(1, 25, dtype=np.float32).reshape(3, 4, 2) / 10
    x[0, 2:] = 0
    x[1, 3] = 0
    x[2, 1] = 0
    return x


KEPT = np.array([[True, True, False, False], [True, True, True, False], [True, False, True, True]])

IDS = np.array([[3, 1, 4, 0, 0], [2, 2, 0, 0, 0], [1, 4, 3, 2, 1], [4, 0, 0, 0, 0]])
LABELS = np.array([[1, 2, 0, 0, 0], [0, 2, 1, 1, 1], [2, 1, 0, 1, 2], [1, 1, 1, 1, 1]])


def test_embedding_with_mask_zero_and_masking_make_the_mask():
    padded = keras.utils.pad_sequences([[711, 632, 71], [73, 8, 3215, 55, 927]], padding="post")
    embedding = layers.Embedding(input_dim=5000, output_dim=4, mask_zero=True)
    out = embedding(padded)
    wanted = [[True, True, True, False, False], [True, True, True, True, True]]
    assert out._keras_mask.dtype == mt.bool
    np.testing.assert_array_equal(out._keras_mask.numpy(), wanted)
    np.testing.assert_array_equal(embedding.compute_mask(padded).numpy(), wanted)
    assert embedding.supports_masking and not layers.Embedding(10, 2).supports_masking
    assert not hasattr(layers.Embedding(10, 2)(padded % 10), "_keras_mask")  # no mask_zero: no mask
    assert embedding.get_config()["mask_zero"] is True

    x = padded_steps()
    masked = layers.Masking()(x)
    np.testing.assert_array_equal(masked._keras_mask.numpy(), KEPT)
    np.testing.assert_array_equal(masked.numpy(), x)  # the masked steps were zeros already
    other = layers.Masking(mask_value=0.5)(np.array([[[0.5, 0.5], [0.5, 1.0]]], np.float32))
    np.testing.assert_array_equal(other._keras_mask.numpy(), [[False, True]])
    np.testing.assert_array_equal(other.numpy(), [[[0.0, 0.0], [0.5, 1.0]]])  # Keras 3 zeroes the masked steps
    assert layers.Masking(mask_value=2.0).get_config()["mask_value"] == 2.0
    plain = mt.convert_to_tensor(x)  # as in TensorFlow, a tensor without a mask has no such attribute
    assert not hasattr(plain, "_keras_mask") and getattr(plain, "_keras_mask", None) is None
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute '_keras_mask'"):
        plain._keras_mask  # noqa: B018


def test_layers_that_keep_the_steps_pass_the_mask_on_and_the_others_drop_it_with_keras_warning():
    masked = layers.Masking()(padded_steps())
    keep_steps = (layers.Dense(3), layers.Activation("relu"), layers.Dropout(0.5), layers.ReLU(), layers.LeakyReLU(),
                  layers.ELU(), layers.Identity(), layers.LayerNormalization(), layers.Rescaling(2.0),
                  layers.TimeDistributed(layers.Dense(2)))  # fmt: skip
    for layer in keep_steps:
        assert layer.supports_masking  # as Keras 3.15
        assert layer(masked)._keras_mask is masked._keras_mask
    assert not layers.Flatten().supports_masking and not layers.GlobalMaxPooling1D().supports_masking
    # TimeDistributed hands each step's column of the mask to a layer whose call takes one, as Keras 3
    seen = []

    class Step(layers.Layer):
        supports_masking = True

        def call(self, inputs, mask=None):
            seen.append(mask)
            return inputs

    layers.TimeDistributed(Step())(masked)
    np.testing.assert_array_equal(np.stack([m.numpy() for m in seen], axis=1), KEPT)
    with pytest.warns(UserWarning, match="Layer 'flat' \\(of type Flatten\\) was passed an input with a mask"):
        assert not hasattr(layers.Flatten(name="flat")(masked), "_keras_mask")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a layer without a mask given says nothing
        layers.Flatten()(padded_steps())


# Keras 3.15 gives these outputs (unit 0 of 2; kernels and recurrent kernels of ones, zero biases) for
# layer(Masking()(padded_steps())) with return_sequences=True, return_state=True: a masked step repeats the previous
# output and keeps the states; read backwards, the padding at the end comes first and outputs zeros.
RNN_OUTPUTS = {
    ("SimpleRNN", False): (
        [[0.2913126, 0.8571828, 0.8571828, 0.8571828], [0.9562374, 0.9995615, 0.9998342, 0.9998342],
         [0.9981779, 0.9981779, 0.9999932, 0.9999971]],
        [[0.8571828, 0.9998342, 0.9999971]],
    ),
    ("SimpleRNN", True): (
        [[0.0, 0.0, 0.6043679, 0.9067143], [0.0, 0.9910074, 0.9996184, 0.9991797],
         [0.9998346, 0.9999931, 0.9999931, 0.9999664]],
        [[0.9067143, 0.9991797, 0.9999664]],
    ),
    ("LSTM", False): (
        [[0.0952412, 0.4052741, 0.4052741, 0.4052741], [0.5927907, 0.9177507, 0.981701, 0.981701],
         [0.7262967, 0.7262967, 0.9583971, 0.9933397]],
        [[0.4052741, 0.981701, 0.9933397], [0.6499286, 2.773136, 2.9622986]],
    ),
    ("LSTM", True): (
        [[0.0, 0.0, 0.2560645, 0.4643771], [0.0, 0.6839739, 0.9319127, 0.970865],
         [0.7508834, 0.9601733, 0.9601733, 0.9904599]],
        [[0.4643771, 0.970865, 0.9904599], [0.8116868, 2.8540542, 2.9790168]],
    ),
    ("GRU", False): (
        [[0.1239703, 0.2864645, 0.2864645, 0.2864645], [0.1244146, 0.1869861, 0.2227214, 0.2227214],
         [0.0292588, 0.0292588, 0.0415206, 0.0494758]],
        [[0.2864645, 0.2227214, 0.0494758]],
    ),
    ("GRU", True): (
        [[0.0, 0.0, 0.2005366, 0.3044576], [0.0, 0.0624071, 0.1373442, 0.222625],
         [0.0090118, 0.0220395, 0.0220395, 0.0494574]],
        [[0.3044576, 0.222625, 0.0494574]],
    ),
}  # fmt: skip


@pytest.mark.parametrize(("kind", "go_backwards"), list(RNN_OUTPUTS))
def test_recurrent_layers_keep_state_and_output_at_masked_steps_as_keras(kind, go_backwards):
    layer = getattr(layers, kind)(
        2,
        return_sequences=True,
        return_state=True,
        go_backwards=go_backwards,
        kernel_initializer="ones",
        recurrent_initializer="ones",
    )
    masked = layers.Masking()(padded_steps())
    output, *states = layer(masked)
    outputs, final_states = RNN_OUTPUTS[kind, go_backwards]
    np.testing.assert_allclose(output.numpy()[..., 0], outputs, atol=1e-6)
    np.testing.assert_allclose(output.numpy()[..., 1], outputs, atol=1e-6)
    for state, wanted in zip(states, final_states, strict=True):
        np.testing.assert_allclose(state.numpy()[:, 0], wanted, atol=1e-6)
    # the sequence keeps the input's mask (Keras 3, also when read backwards); the states have none
    assert output._keras_mask is masked._keras_mask and not any(hasattr(s, "_keras_mask") for s in states)
    # the mask given in the call, as a bool or 0/1 array, gives the same; the last output alone has no mask
    again = layer(padded_steps(), mask=KEPT.astype(np.int32))
    np.testing.assert_allclose(again[0].numpy(), output.numpy(), atol=1e-7)
    last = getattr(layers, kind)(2, go_backwards=go_backwards, kernel_initializer="ones")
    assert not hasattr(last(masked), "_keras_mask")


def test_a_recurrent_layer_refuses_a_mask_of_another_shape():
    with pytest.raises(ValueError, match=r'LSTM "lstm_x": the mask must have shape \(batch, steps\) = \(3, 4\).*'):
        layers.LSTM(2, name="lstm_x")(padded_steps(), mask=np.ones((3, 5), bool))


def test_bidirectional_outputs_zeros_at_masked_steps_in_both_directions_as_keras():
    wrapped = layers.LSTM(2, return_sequences=True, kernel_initializer="ones", recurrent_initializer="ones")
    masked = layers.Masking()(padded_steps())
    out = layers.Bidirectional(wrapped)(masked)
    # Keras 3.15 (Bidirectional sets zero_output_for_mask on both layers when they return sequences)
    forward = [[0.0952412, 0.4052741, 0.0, 0.0], [0.5927907, 0.9177507, 0.981701, 0.0],
               [0.7262967, 0.0, 0.9583971, 0.9933397]]  # fmt: skip
    backward = [[0.4643771, 0.2560645, 0.0, 0.0], [0.970865, 0.9319127, 0.6839739, 0.0],
                [0.9904599, 0.0, 0.9601733, 0.7508834]]  # fmt: skip
    np.testing.assert_allclose(out.numpy()[..., 0], forward, atol=1e-6)
    np.testing.assert_allclose(out.numpy()[..., 2], backward, atol=1e-6)
    assert out._keras_mask is masked._keras_mask
    pair = layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode=None)(masked)
    assert all(half._keras_mask is masked._keras_mask for half in pair)
    last = layers.Bidirectional(layers.GRU(2, kernel_initializer="ones", recurrent_initializer="ones"))(masked)
    assert not hasattr(last, "_keras_mask")
    # Keras 3.15: the final outputs of the two directions
    np.testing.assert_allclose(last.numpy()[:, [0, 2]], [[0.2864645, 0.3044576], [0.2227214, 0.222625],
                                                          [0.0494758, 0.0494574]], atol=1e-6)  # fmt: skip


def test_global_average_pooling_averages_the_kept_steps_and_max_pooling_ignores_the_mask_as_keras():
    masked = layers.Masking()(padded_steps())
    pooled = layers.GlobalAveragePooling1D()(masked)
    # Keras 3.15
    np.testing.assert_allclose(pooled.numpy(), [[0.2, 0.3], [1.1, 1.2], [2.0333333, 2.1333334]], rtol=1e-6)
    assert not hasattr(pooled, "_keras_mask")
    kept = layers.GlobalAveragePooling1D(keepdims=True)(masked)
    assert kept.shape == (3, 1, 2)
    np.testing.assert_allclose(kept.numpy()[:, 0], pooled.numpy())
    with pytest.warns(UserWarning, match="does not support masking"):
        biggest = layers.GlobalMaxPooling1D()(masked)
    np.testing.assert_allclose(biggest.numpy(), [[0.3, 0.4], [1.3, 1.4], [2.3, 2.4]], rtol=1e-6)  # Keras 3.15


def embedded_queries() -> mt.Tensor:
    table = keras.initializers.Constant(np.arange(20).reshape(5, 4) / 20)
    return layers.Embedding(5, 4, mask_zero=True, embeddings_initializer=table)(np.array([[3, 1, 0, 0], [2, 2, 4, 0]]))


def test_attention_layers_take_the_masks_of_their_inputs_as_keras():
    q = embedded_queries()
    out = layers.Attention()([q, q])
    # Keras 3.15: padded value steps get no attention, padded query steps output zeros
    wanted = [[[0.4985976, 0.5485976, 0.5985976, 0.6485976], [0.4433036, 0.4933035, 0.5433035, 0.5933036],
               [0.0] * 4, [0.0] * 4],
              [[0.6066828, 0.6566828, 0.7066828, 0.7566828], [0.6066828, 0.6566828, 0.7066828, 0.7566828],
               [0.6678821, 0.7178822, 0.7678822, 0.8178822], [0.0] * 4]]  # fmt: skip
    np.testing.assert_allclose(out.numpy(), wanted, atol=1e-6)
    assert out._keras_mask is q._keras_mask  # the query's mask

    q = embedded_queries()
    query_mask = q._keras_mask
    out, scores = layers.MultiHeadAttention(2, 2, kernel_initializer="ones")(q, q, return_attention_scores=True)
    # Keras 3.15
    np.testing.assert_allclose(out.numpy()[..., 0], [[10.785812, 10.309557, 0, 0], [13.830783, 13.830783, 13.99535, 0]],
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(scores.numpy()[0, 0], [[0.9977831, 0.002217, 0, 0], [0.9233682, 0.0766318, 0, 0],
                                                      [0, 0, 0, 0], [0, 0, 0, 0]], atol=1e-6)  # fmt: skip
    assert out._keras_mask is query_mask
    assert not hasattr(q, "_keras_mask")  # as Keras 3: MultiHeadAttention takes the masks off its inputs


def sequence_model() -> keras.Model:
    rng = np.random.default_rng(0)
    model = keras.Sequential(
        [
            keras.Input((None,), dtype="int32"),
            layers.Embedding(5, 3, mask_zero=True),
            layers.LSTM(4, return_sequences=True),
            layers.Dense(3),
        ]
    )
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) * 0.5 for w in model.get_weights()])
    return model


def test_losses_and_metrics_leave_out_the_masked_steps_as_keras():
    out = sequence_model()(IDS)
    np.testing.assert_array_equal(out._keras_mask.numpy(), IDS != 0)
    # Keras 3.15's numbers for the same weights and data
    np.testing.assert_allclose(out.numpy()[1, :, 0], [-0.6675212, -0.6115478, -0.6115478, -0.6115478, -0.6115478],
                               rtol=1e-6)  # fmt: skip
    xent = keras.losses.SparseCategoricalCrossentropy
    np.testing.assert_allclose(float(xent(from_logits=True)(LABELS, out)), 1.1328796, rtol=1e-6)
    np.testing.assert_allclose(float(xent(from_logits=True, reduction="sum")(LABELS, out)), 12.461677, rtol=1e-6)
    per_step = xent(from_logits=True, reduction="none")(LABELS, out).numpy()
    np.testing.assert_allclose(per_step[3], [0.7915493, 0, 0, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(float(xent(from_logits=True)(LABELS, out.numpy())), 1.0628718, rtol=1e-6)  # no mask
    accuracy = keras.metrics.SparseCategoricalAccuracy()
    accuracy.update_state(LABELS, out)
    np.testing.assert_allclose(float(accuracy.result()), 0.36363637, rtol=1e-6)
    mse = keras.metrics.MeanSquaredError()
    mse.update_state(np.zeros((4, 5, 3)), out)
    np.testing.assert_allclose(float(mse.result()), 0.18848562, rtol=1e-6)

    # a loss given by name or as a function in compile is masked too (Keras 3.15: 1.1328796 for each)
    model = sequence_model()
    model.add(layers.Activation("softmax"))
    for loss in ("sparse_categorical_crossentropy", lambda t, p: keras.losses.sparse_categorical_crossentropy(t, p)):
        model.compile(optimizer="sgd", loss=loss, metrics=["sparse_categorical_crossentropy"])
        np.testing.assert_allclose(model.evaluate(IDS, LABELS, verbose=0), [1.1328796] * 2, rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_fit_weighs_the_loss_and_accuracy_by_the_output_mask_as_keras(run_eagerly):
    model = sequence_model()
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss=loss, metrics=["accuracy"], run_eagerly=run_eagerly)
    np.testing.assert_allclose(model.evaluate(IDS, LABELS, verbose=0), [1.1328796, 0.36363637], rtol=1e-6)
    history = model.fit(IDS, LABELS, epochs=3, batch_size=4, verbose=0, shuffle=False).history
    # Keras 3.15 prints these in fit
    np.testing.assert_allclose(history["loss"], [1.132879614830017, 1.120741605758667, 1.1124370098114014], rtol=1e-5)
    np.testing.assert_allclose(history["accuracy"], [0.3636363744735718] * 3, rtol=1e-6)
    # a weight per example reaches each of its steps (Keras 3.15 fails on this one: its mask is (batch, steps))
    weighted = model.evaluate(IDS, LABELS, verbose=0, sample_weight=np.array([1.0, 2.0, 0.5, 1.0]))
    per_step = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(LABELS, model(IDS))
    weights = np.array([1.0, 2.0, 0.5, 1.0])[:, None] * (IDS != 0)
    np.testing.assert_allclose(weighted[0], np.sum(per_step.numpy() * weights) / np.sum(IDS != 0), rtol=1e-5)


def test_a_traced_model_computes_the_mask_of_each_call_from_its_inputs():
    model = sequence_model()
    pooled = keras.Sequential([model, layers.GlobalAveragePooling1D()])
    traced = mt.function(lambda ids: pooled(ids))
    other = np.array([[1, 0, 0, 0, 0], [2, 3, 4, 1, 0], [3, 3, 0, 0, 0], [4, 4, 4, 4, 4]])
    for ids in (IDS, other, IDS):
        np.testing.assert_allclose(traced(ids).numpy(), pooled(ids).numpy(), rtol=1e-6)
    # each example's result depends on its own steps only: padding more does not change it
    longer = np.concatenate([other, np.zeros((4, 3), other.dtype)], axis=1)
    np.testing.assert_allclose(pooled(longer).numpy(), pooled(other).numpy(), rtol=1e-5)
    assert traced.experimental_get_tracing_count() == 1

    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    step = mt.function(lambda ids, y: loss(y, model(ids)))
    for ids, y in ((IDS, LABELS), (other, LABELS), (IDS, LABELS)):
        np.testing.assert_allclose(float(step(ids, y)), float(loss(y, model(ids))), rtol=1e-6)


def test_gradients_through_a_masked_recurrence_match_finite_differences():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 4, 2))
    mask = KEPT
    for kind in ("LSTM", "GRU", "SimpleRNN"):
        layer = getattr(layers, kind)(3, return_sequences=True, dtype="float64")
        layer.build(x.shape)
        states = [rng.normal(size=(3, 3)) for _ in range(2 if kind == "LSTM" else 1)]
        check_gradients(lambda a, *s, layer=layer: layer(a, initial_state=list(s), mask=mask), [x, *states])
    bidirectional = layers.Bidirectional(layers.LSTM(2, return_sequences=True, dtype="float64"), dtype="float64")
    check_gradients(lambda a: bidirectional(a, mask=mask), [x])
    # the masked steps' inputs do not count: their gradient is zero
    lstm = layers.LSTM(3, dtype="float64")
    xt = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(xt)
        out = mt.reduce_sum(lstm(xt, mask=mask))
    grad = tape.gradient(out, xt).numpy()
    assert np.all(grad[~mask] == 0) and np.all(np.abs(grad[mask]).sum(-1) > 0)


def test_masks_in_functional_models_and_custom_layers():
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=4, mask_zero=True)(inputs)
    assert isinstance(x._keras_mask, type(inputs)) and x._keras_mask.shape == (None, None)
    assert x._keras_mask.dtype == "bool" and not hasattr(inputs, "_keras_mask")
    seen = []

    class TakesMask(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            seen.append(mask)
            return inputs * 2.0

    y = TakesMask()(x)
    assert y._keras_mask is not None
    outputs = layers.LSTM(3)(y)
    assert not hasattr(outputs, "_keras_mask")
    model = keras.Model(inputs, outputs)
    seen.clear()
    result = model(IDS[:, :4])
    np.testing.assert_array_equal(seen[-1].numpy(), IDS[:, :4] != 0)  # the call received the mask
    assert not hasattr(result, "_keras_mask")
    # the same layers called one by one: an op on a masked tensor (here * 2) gives a tensor without a mask (as
    # in Keras 3), so the mask is given to the LSTM by hand; without it the padding counts
    lstm, embedding = model.layers[-1], model.layers[1]
    doubled = embedding(IDS[:, :4]) * 2.0
    assert not hasattr(doubled, "_keras_mask")
    np.testing.assert_allclose(result.numpy(), lstm(doubled, mask=IDS[:, :4] != 0).numpy(), rtol=1e-6)
    assert not np.allclose(result.numpy(), lstm(doubled).numpy(), rtol=1e-3)

    class Halves(layers.Layer):
        def call(self, inputs):
            return mt.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            return None if mask is None else mt.split(mask, 2, axis=1)

    assert Halves().supports_masking  # a layer with its own compute_mask supports masking, as in Keras 3
    first, second = Halves()(layers.Masking()(padded_steps()))
    np.testing.assert_array_equal(first._keras_mask.numpy(), KEPT[:, :2])
    np.testing.assert_array_equal(second._keras_mask.numpy(), KEPT[:, 2:])
    assert layers.Layer().compute_mask(None, "m") == "m" and not layers.Layer().supports_masking


def test_merging_layers_and_lambda_combine_masks_as_keras():
    ids = np.array([[1, 0, 2], [0, 3, 3]])
    embedded = layers.Embedding(5, 2, mask_zero=True)(ids)
    everywhere = layers.Masking()(np.ones((2, 3, 2), np.float32))
    # Keras 3.15: Add keeps a step any input keeps; Concatenate joins the masks along its axis, an input without a
    # mask counting as kept everywhere
    np.testing.assert_array_equal(layers.Add()([embedded, everywhere])._keras_mask.numpy(), np.ones((2, 3), bool))
    np.testing.assert_array_equal(layers.Multiply()([embedded, embedded])._keras_mask.numpy(), ids != 0)
    joined = layers.Concatenate(axis=1)([embedded, embedded])._keras_mask
    np.testing.assert_array_equal(joined.numpy(), np.concatenate([ids, ids], axis=1) != 0)
    with_plain = layers.Concatenate()([embedded, np.ones((2, 3, 2), np.float32)])._keras_mask
    np.testing.assert_array_equal(with_plain.numpy(), np.ones((2, 3), bool))
    assert not hasattr(layers.Add()([embedded, np.ones((2, 3, 2), np.float32)]), "_keras_mask")

    given = layers.Lambda(lambda t: t * 2, mask=lambda inputs, mask: mask)(embedded)
    np.testing.assert_array_equal(given._keras_mask.numpy(), ids != 0)
    with pytest.warns(UserWarning, match="of type Lambda"):  # its function reads the mask; its output has none
        reads = layers.Lambda(lambda t, mask=None: t * mt.cast(mask, t.dtype)[..., None])(embedded)
    np.testing.assert_array_equal(reads.numpy()[ids == 0], 0.0)
    with pytest.warns(UserWarning, match="of type Lambda"):  # as Keras 3: a Lambda without `mask` drops it
        assert not hasattr(layers.Lambda(lambda t: t * 2)(embedded), "_keras_mask")

    inputs = keras.Input((None,), dtype="int32")
    x = layers.Embedding(5, 2, mask_zero=True)(inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an op on a KerasTensor drops the mask silently, as in Keras 3
        doubled = x * 2
        outputs = layers.Add()([x, x])
    assert not hasattr(doubled, "_keras_mask") and outputs._keras_mask.shape == (None, None)
    np.testing.assert_array_equal(keras.Model(inputs, outputs)(ids)._keras_mask.numpy(), ids != 0)


def test_batch_normalization_takes_its_moments_over_the_kept_steps_as_keras():
    bn = layers.BatchNormalization(momentum=0.5)
    masked = layers.Masking()(padded_steps())
    out = bn(masked, training=True)
    # Keras 3.15 (feature 0 of the output; the moving statistics after one step of momentum 0.5)
    wanted = [[-1.5164329, -1.2468448, -1.6512269, -1.6512269], [-0.4380807, -0.1684924, 0.1010954, -1.6512269],
              [0.6402718, -1.6512269, 1.1794478, 1.4490358]]  # fmt: skip
    np.testing.assert_allclose(out.numpy()[..., 0], wanted, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.6125, 0.6625], rtol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [0.7746875, 0.7746875], rtol=1e-6)
    assert out._keras_mask is masked._keras_mask
    np.testing.assert_allclose(bn(masked, training=False).numpy()[0, :, 1],
                               [-0.5251319, -0.2980478, -0.7522159, -0.7522159], rtol=1e-6)  # fmt: skip
    check_gradients(lambda a: layers.BatchNormalization(dtype="float64")(a, training=True, mask=KEPT),
                    [padded_steps().astype(np.float64) + 0.1])  # fmt: skip
    with pytest.raises(ValueError, match=r"The mask provided should be one dimension less than the inputs"):
        bn(padded_steps(), mask=np.ones((3, 4, 2), bool))


def test_softmax_gives_the_masked_positions_probability_zero_as_keras():
    x = np.array([[[1.0, 2.0, 3.0], [0.5, 0.1, 0.2]]], np.float32)
    wanted = [[[0.11920291, 0.0, 0.880797], [0.5744425, 0.0, 0.4255575]]]  # Keras 3.15
    np.testing.assert_allclose(layers.Softmax()(x, mask=np.array([[True, False, True]])).numpy(), wanted, rtol=1e-6)
    np.testing.assert_allclose(layers.Softmax()(x, mask=np.array([[1.0, 0.2, 0.9]])).numpy(), wanted, rtol=1e-6)
    embedded = layers.Embedding(5, 3, mask_zero=True)(np.array([[1, 2, 0], [3, 0, 0]]))
    # Keras 3.15 fails the same way on a (batch, steps) Keras mask against (batch, steps, classes) scores
    with pytest.raises(ValueError, match=r"The `mask` must be broadcastable to `inputs`.*inputs.shape=\(2, 3, 3\), "):
        layers.Softmax()(embedded)
