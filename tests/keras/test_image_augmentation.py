"""Keras 3's image preprocessing and augmentation layers: Resizing, CenterCrop and the Random* layers.

The numbers marked "TensorFlow 2.21" are what TensorFlow 2.21 / Keras 3.15 printed for the same layer and input
(6 decimals). A random layer with a factor pair (lower, upper) of equal ends draws that one value, so its output
is TensorFlow's to the last digit; with other factors the draws are numpy's, not TensorFlow's, and the tests check
what the transform must be (a flip or not, a box of the input, a contrast about the mean).
"""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape import keras
from minitape.aids.check_gradients import check_gradients

layers = keras.layers
IMG = (np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1) ** 1.5) / 10  # one 3x4 grey image, uneven steps
X46 = np.arange(24, dtype=np.float32).reshape(1, 4, 6, 1)


def pixels(t):
    return np.asarray(t)[0, :, :, 0] if len(np.shape(t)) == 4 else np.asarray(t)[:, :, 0]


# ---- Resizing and CenterCrop --------------------------------------------------------------------------
def test_resizing_gives_tensorflows_half_pixel_bilinear_and_nearest_values():
    # TensorFlow 2.21: layers.Resizing(5, 7)(IMG) and Resizing(4, 3, interpolation="nearest")(IMG)
    bilinear = [
        [0.0, 0.035714, 0.092857, 0.191421, 0.299755, 0.435054, 0.519615],
        [0.32, 0.386862, 0.493841, 0.632398, 0.778654, 0.947224, 1.05258],
        [0.8, 0.913584, 1.095317, 1.293864, 1.497003, 1.715479, 1.852026],
        [1.677645, 1.816777, 2.039388, 2.27623, 2.516997, 2.77102, 2.929783],
        [2.262742, 2.418905, 2.668767, 2.931139, 3.196993, 3.474712, 3.648287],
    ]
    nearest = [
        [0.0, 0.282843, 0.519615],
        [0.8, 1.469694, 1.852026],
        [0.8, 1.469694, 1.852026],
        [2.262742, 3.162278, 3.648287],
    ]
    out = layers.Resizing(5, 7)(IMG)
    assert out.shape == (1, 5, 7, 1) and out.dtype == mt.float32
    np.testing.assert_allclose(pixels(out), bilinear, atol=1e-6)
    np.testing.assert_allclose(pixels(layers.Resizing(4, 3, interpolation="nearest")(IMG)), nearest, atol=1e-6)
    assert layers.Resizing(2, 5)(IMG[0]).shape == (2, 5, 1)  # one image in, one image out
    # TensorFlow 2.21: shrinking 4x4 to 2x2 averages each 2x2 block (half-pixel centres)
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    assert pixels(layers.Resizing(2, 2)(x)).tolist() == [[2.5, 4.5], [10.5, 12.5]]


def test_resizing_crops_or_pads_to_the_aspect_ratio_first():
    # TensorFlow 2.21 (Keras 3.15): 4x6 to 2x2, cropped to the centred 4x4 or padded to 6x6 (fill 7 in the last)
    crop = layers.Resizing(2, 2, crop_to_aspect_ratio=True)(X46)
    assert pixels(crop).tolist() == [[4.5, 6.5], [16.5, 18.5]]
    assert pixels(layers.Resizing(2, 2, pad_to_aspect_ratio=True)(X46)).tolist() == [[1.0, 4.0], [19.0, 22.0]]
    padded = layers.Resizing(4, 4, pad_to_aspect_ratio=True, fill_value=7.0)(X46)
    want = [
        [5.3125, 5.6875, 6.0625, 6.4375],
        [4.75, 6.25, 7.75, 9.25],
        [13.75, 15.25, 16.75, 18.25],
        [9.8125, 10.1875, 10.5625, 10.9375],
    ]
    np.testing.assert_allclose(pixels(padded), want, rtol=1e-6)


def test_center_crop_takes_the_centre_and_resizes_an_image_too_small():
    # TensorFlow 2.21 (Keras 3.15)
    assert pixels(layers.CenterCrop(2, 3)(X46)).tolist() == [[7.0, 8.0, 9.0], [13.0, 14.0, 15.0]]
    up = layers.CenterCrop(6, 6)(X46)  # 4 rows only: the centred 4x4 resized to 6x6
    np.testing.assert_allclose(pixels(up)[0], [1.0, 1.5, 2.166667, 2.833333, 3.5, 4.0], rtol=1e-6)
    np.testing.assert_allclose(pixels(up)[:, 0], [1.0, 4.0, 8.0, 12.0, 16.0, 19.0], rtol=1e-6)


def test_resizing_and_center_crop_refuse_what_they_cannot_do():
    with pytest.raises(NotImplementedError, match="'bicubic' method is not in minitape; use 'bilinear'"):
        layers.Resizing(2, 2, interpolation="bicubic")
    with pytest.raises(ValueError, match="Resize method is not implemented: gaussian_blur"):
        layers.Resizing(2, 2, interpolation="gaussian_blur")
    with pytest.raises(ValueError, match="Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(NotImplementedError, match="antialias=True is not in minitape"):
        layers.Resizing(2, 2, antialias=True)
    with pytest.raises(NotImplementedError, match=r"channels_last images.*mt.transpose\(x, \[0, 2, 3, 1\]\)"):
        layers.Resizing(2, 2, data_format="channels_first")
    with pytest.raises(ValueError, match="`height` must be a positive integer"):
        layers.CenterCrop(0, 2)
    with pytest.raises(ValueError, match=r"rank 3 \(height, width, channels\).*received an input of shape \(4, 6\)"):
        layers.Resizing(2, 2)(np.zeros((4, 6), np.float32))


def test_a_model_with_resizing_in_front_trains():
    rng = np.random.default_rng(0)
    x = rng.random((32, 8, 8, 1)).astype(np.float32)
    y = (x[:, :4].mean(axis=(1, 2, 3)) > x[:, 4:].mean(axis=(1, 2, 3))).astype(np.float32)[:, None]
    model = keras.Sequential(
        [keras.Input((8, 8, 1)), layers.Resizing(4, 4), layers.Rescaling(2.0), layers.Flatten(), layers.Dense(1)]
    )
    model.compile(keras.optimizers.Adam(0.05), "mse")
    history = model.fit(x, y, batch_size=8, epochs=15, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert model.predict(x[:2], verbose=0).shape == (2, 1)


# ---- the random layers: when they act --------------------------------------------------------------------
RANDOM_LAYERS = [
    lambda: layers.RandomFlip("horizontal", seed=1),
    lambda: layers.RandomRotation(0.2, seed=1),
    lambda: layers.RandomZoom(0.2, seed=1),
    lambda: layers.RandomTranslation(0.2, 0.2, seed=1),
    lambda: layers.RandomContrast(0.5, seed=1),
    lambda: layers.RandomBrightness(0.2, seed=1),
    lambda: layers.RandomCrop(2, 3, seed=1),
]


@pytest.mark.parametrize("make", RANDOM_LAYERS)
def test_a_random_layer_passes_images_through_unless_training(make):
    images = np.random.default_rng(2).random((3, 4, 4, 1)).astype(np.float32) * 255
    layer = make()
    assert np.array_equal(layer(images, training=False), images)  # Keras 3.15: RandomCrop too
    model = keras.Sequential([keras.Input((4, 4, 1)), layer])
    assert np.array_equal(model.predict(images, verbose=0), images)
    calls = [np.asarray(layer(images)) for _ in range(3)]  # no training given: Keras 3's image layers augment
    assert any(c.shape != images.shape or not np.allclose(c, images) for c in calls)
    one = layer(images[0], training=True)
    assert one.dtype == mt.float32 and one.shape == calls[0].shape[1:]


def test_called_with_no_training_the_layers_of_a_model_augment_as_in_keras_3():
    images = np.random.default_rng(3).random((2, 8, 8, 1)).astype(np.float32)
    # Keras 3.15: a Sequential or functional model called as model(x) augments; predict does not
    sequential = keras.Sequential([layers.RandomRotation(0.3)])
    assert not np.allclose(sequential(images), images)
    assert np.array_equal(sequential.predict(images, verbose=0), images)
    inputs = keras.Input((8, 8, 1))
    functional = keras.Model(inputs, layers.RandomRotation(0.3)(inputs))
    assert not np.allclose(functional(images), images)
    assert np.array_equal(functional(images, training=False), images)
    dropout = keras.Sequential([layers.Dropout(0.5)])  # a Dropout's call defaults to training=False: it stays off
    assert np.array_equal(dropout(images), images)


# ---- the random layers: their transforms, at fixed draws -----------------------------------------------
# TensorFlow 2.21 (Keras 3.15): RandomRotation((1/12, 1/12), fill_mode, interpolation, fill_value=0.5)(IMG), 30 deg
ROTATED_30 = {
    ("reflect", "bilinear"): [
        [0.070096, 0.203669, 0.86529, 1.697432],
        [0.23105, 0.884255, 1.867431, 3.106761],
        [0.969715, 1.92305, 2.900172, 3.307613],
    ],
    ("reflect", "nearest"): [
        [0.1, 0.282843, 0.282843, 1.852026],
        [0.0, 1.118034, 1.469694, 3.648287],
        [0.8, 2.7, 2.7, 3.162278],
    ],
    ("wrap", "bilinear"): [
        [2.569243, 2.962106, 0.86529, 0.70718],
        [0.23105, 0.884255, 1.867431, 3.106761],
        [2.060438, 1.92305, 0.179173, 0.353647],
    ],
    ("wrap", "nearest"): [
        [2.7, 3.162278, 0.282843, 0.8],
        [0.0, 1.118034, 1.469694, 3.648287],
        [1.852026, 2.7, 0.1, 0.282843],
    ],
    ("constant", "bilinear"): [
        [0.334928, 0.238051, 0.86529, 1.339355],
        [0.23105, 0.884255, 1.867431, 3.106761],
        [0.829253, 1.92305, 2.621691, 1.578052],
    ],
    ("constant", "nearest"): [
        [0.5, 0.282843, 0.282843, 1.852026],
        [0.0, 1.118034, 1.469694, 3.648287],
        [0.8, 2.7, 2.7, 0.5],
    ],
    ("nearest", "bilinear"): [
        [0.070096, 0.203669, 0.86529, 1.697432],
        [0.23105, 0.884255, 1.867431, 3.106761],
        [0.969715, 1.92305, 2.900172, 3.307613],
    ],
}


@pytest.mark.parametrize(("fill_mode", "interpolation"), list(ROTATED_30))
def test_random_rotation_at_a_fixed_angle_gives_tensorflows_pixels(fill_mode, interpolation):
    layer = layers.RandomRotation((1 / 12, 1 / 12), fill_mode=fill_mode, interpolation=interpolation, fill_value=0.5)
    np.testing.assert_allclose(pixels(layer(IMG, training=True)), ROTATED_30[fill_mode, interpolation], atol=1e-6)


def test_zoom_translation_quarter_turn_and_brightness_at_fixed_draws_give_tensorflows_pixels():
    # TensorFlow 2.21 (Keras 3.15), each on IMG with training=True
    cases = [
        (
            layers.RandomRotation((0.25, 0.25), fill_mode="constant"),
            IMG[0],
            [
                [0.200614, 1.031044, 2.533071, 1.702641],
                [0.095711, 0.742643, 2.112502, 1.46557],
                [0.025, 0.504508, 1.720194, 1.240686],
            ],
        ),
        (
            layers.RandomZoom((0.5, 0.5), (-0.25, -0.25), fill_mode="wrap"),
            IMG,
            [
                [2.426714, 2.757784, 3.104493, 3.466034],
                [0.919263, 1.161992, 1.425736, 1.708651],
                [0.0375, 0.122855, 0.259987, 0.430826],
            ],
        ),
        (
            layers.RandomZoom((-0.4, -0.4), fill_mode="constant", interpolation="nearest"),
            IMG,
            [[0.1, 0.1, 0.282843, 0.282843], [1.118034, 1.118034, 1.469694, 1.469694], [2.7, 2.7, 3.162278, 3.162278]],
        ),
        (
            layers.RandomTranslation((0.34, 0.34), (-0.25, -0.25), fill_mode="nearest"),
            IMG,
            [
                [0.1, 0.282843, 0.519615, 0.519615],
                [0.1, 0.282843, 0.519615, 0.519615],
                [1.097673, 1.445957, 1.825378, 1.825378],
            ],
        ),
        (
            layers.RandomTranslation((-0.5, -0.5), (0.1, 0.1), fill_mode="reflect"),
            IMG,
            [
                [1.531371, 1.757958, 2.153198, 2.576488],
                [2.262742, 2.525097, 2.977366, 3.453884],
                [1.531371, 1.757958, 2.153198, 2.576488],
            ],
        ),
        (
            layers.RandomBrightness((0.2, 0.2), value_range=(0, 1)),
            IMG,
            [[0.2, 0.3, 0.482843, 0.719615], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
        ),
        (
            layers.RandomContrast(0.0, value_range=(0, 1)),
            IMG,
            [[0.0, 0.1, 0.282843, 0.519615], [0.8, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]],
        ),
    ]
    for layer, images, want in cases:
        out = layer(images, training=True)
        assert out.shape == images.shape, type(layer).__name__
        np.testing.assert_allclose(pixels(out), want, atol=1e-6, err_msg=type(layer).__name__)


def test_random_flip_flips_each_image_or_leaves_it():
    images = np.random.default_rng(4).random((64, 3, 4, 2)).astype(np.float32)
    for mode, flipped in [
        ("horizontal", images[:, :, ::-1]),
        ("vertical", images[:, ::-1]),
        ("horizontal_and_vertical", images[:, ::-1, ::-1]),  # Keras 3.15: one draw decides both flips
    ]:
        out = np.asarray(layers.RandomFlip(mode, seed=5)(images, training=True))
        same = np.all(out == images, axis=(1, 2, 3))
        turned = np.all(out == flipped, axis=(1, 2, 3))
        assert np.all(same | turned) and 16 < turned.sum() < 48, mode
    with pytest.raises(ValueError, match="RandomFlip: mode must be one of"):
        layers.RandomFlip("diagonal")


def test_random_contrast_scales_about_each_images_channel_mean_within_the_factor():
    images = np.random.default_rng(6).random((16, 5, 5, 3)).astype(np.float32)
    out = np.asarray(layers.RandomContrast(0.5, value_range=(-10, 10), seed=0)(images, training=True))
    mean = images.mean(axis=(1, 2), keepdims=True)
    factor = (out - mean) / (images - mean)
    per_image = factor.reshape(16, -1)
    np.testing.assert_allclose(per_image, per_image[:, :1] * np.ones_like(per_image), rtol=1e-3)
    assert np.all((per_image >= 1 - 1e-4) & (per_image <= 1.5 + 1e-4))  # Keras 3.15: factor 0.5 draws c in [1, 1.5]
    clipped = layers.RandomContrast(0.5, seed=0)(images * 255, training=True)  # value_range (0, 255)
    assert float(mt.reduce_max(clipped)) <= 255 and float(mt.reduce_min(clipped)) >= 0


def test_random_crop_takes_one_box_for_the_whole_batch_and_resizes_small_images():
    images = np.arange(2 * 6 * 7, dtype=np.float32).reshape(2, 6, 7, 1)
    layer = layers.RandomCrop(3, 4, seed=2)
    corners = set()
    for _ in range(20):
        out = np.asarray(layer(images, training=True))
        top, left = divmod(int(out[0, 0, 0, 0]), 7)
        assert np.array_equal(out, images[:, top : top + 3, left : left + 4])
        corners.add((top, left))
    assert len(corners) > 4 and all(0 <= t <= 3 and 0 <= c <= 3 for t, c in corners)
    # TensorFlow 2.21 (Keras 3.15): a 4x4 image into a 6x6 crop is resized, its first row
    small = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    np.testing.assert_allclose(
        pixels(layers.RandomCrop(6, 6)(small, training=True))[0], [0.0, 0.5, 1.166667, 1.833333, 2.5, 3.0], rtol=1e-6
    )


def test_seeded_layers_repeat_their_draws_and_draw_new_numbers_at_each_call():
    images = np.random.default_rng(7).random((4, 6, 6, 1)).astype(np.float32)
    first, second = layers.RandomRotation(0.3, seed=11), layers.RandomRotation(0.3, seed=11)
    a1, a2 = first(images, training=True), first(images, training=True)
    assert np.array_equal(a1, second(images, training=True)) and np.array_equal(a2, second(images, training=True))
    assert not np.allclose(a1, a2)
    mt.random.set_seed(3)  # unseeded layers draw from the global generator
    b1 = layers.RandomZoom(0.3)(images)
    mt.random.set_seed(3)
    assert np.array_equal(b1, layers.RandomZoom(0.3)(images))


def test_random_layers_refuse_bad_arguments_with_keras_messages():
    with pytest.raises(ValueError, match=r"in the range \[-1, 1\]\. Received: factor=1.5"):
        layers.RandomRotation(1.5)
    with pytest.raises(ValueError, match=r"in the range \(-1.0, 1.0\]\. Received: factor=-1.0"):
        layers.RandomZoom(-1.0)
    with pytest.raises(ValueError, match=r"in the range \[0, 1\]\. Received: factor=\(0.2, 1.5\)"):
        layers.RandomContrast((0.2, 1.5))
    with pytest.raises(NotImplementedError, match=r"Unknown `fill_mode` mirror\. Expected of one \('reflect'"):
        layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match=r"Unknown `interpolation` bicubic"):
        layers.RandomTranslation(0.1, 0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match="`value_range` argument should be a list of two numbers"):
        layers.RandomBrightness(0.1, value_range=255)
    with pytest.raises(NotImplementedError, match="data_format='channels_first' is not supported"):
        layers.RandomFlip(data_format="channels_first")


# ---- gradients ---------------------------------------------------------------------------------------------
GEOMETRY = [
    lambda: layers.Resizing(5, 3, dtype="float64"),
    lambda: layers.Resizing(2, 3, interpolation="nearest", crop_to_aspect_ratio=True, dtype="float64"),
    lambda: layers.Resizing(3, 3, pad_to_aspect_ratio=True, fill_value=0.5, dtype="float64"),
    lambda: layers.CenterCrop(3, 3, dtype="float64"),
    lambda: layers.RandomRotation(0.3, fill_mode="constant", fill_value=0.25, seed=1, dtype="float64"),
    lambda: layers.RandomRotation(0.3, fill_mode="reflect", interpolation="nearest", seed=1, dtype="float64"),
    lambda: layers.RandomZoom(0.4, 0.2, fill_mode="wrap", seed=2, dtype="float64"),
    lambda: layers.RandomTranslation(0.3, 0.3, fill_mode="nearest", seed=3, dtype="float64"),
    lambda: layers.RandomCrop(3, 2, seed=4, dtype="float64"),
    lambda: layers.RandomFlip(seed=5, dtype="float64"),
    lambda: layers.RandomContrast(0.4, value_range=(-100, 100), seed=6, dtype="float64"),
    lambda: layers.RandomBrightness(0.3, value_range=(-100, 100), seed=7, dtype="float64"),
]


@pytest.mark.parametrize("make", GEOMETRY)
def test_gradients_through_the_image_layers_agree_with_finite_differences(make):
    images = np.random.default_rng(8).random((2, 4, 5, 2))
    # a new layer at every call, with its seed: the same draws each time, so f is one function of the pixels
    check_gradients(lambda x: make()(x, training=True), [images], order=2)


# ---- traced, in fit, and in dataset.map ------------------------------------------------------------------------
def test_a_traced_call_draws_what_the_eager_calls_draw_in_turn():
    images = np.random.default_rng(9).random((3, 5, 5, 2)).astype(np.float32)
    for make in (
        lambda: layers.RandomRotation(0.3, seed=4),
        lambda: layers.RandomCrop(3, 3, seed=4),
        lambda: layers.RandomFlip(seed=4),
        lambda: layers.RandomBrightness(0.3, seed=4),
    ):
        traced_layer, eager_layer = make(), make()
        traced = mt.function(lambda x, layer=traced_layer: layer(x, training=True))
        outputs = [traced(images) for _ in range(4)]
        for out in outputs:
            np.testing.assert_array_equal(out, eager_layer(images, training=True))
        assert any(not np.array_equal(outputs[0], o) for o in outputs[1:])  # not one frozen draw


def test_fit_draws_new_numbers_at_every_traced_step_as_an_eager_fit_does():
    rng = np.random.default_rng(10)
    x, y = rng.random((24, 6, 6, 1)).astype(np.float32), rng.random((24, 1)).astype(np.float32)

    def trained(run_eagerly):
        mt.random.set_seed(5)  # the same Dense weights
        augment = layers.RandomTranslation(0.3, 0.3, seed=21)
        model = keras.Sequential([keras.Input((6, 6, 1)), augment, layers.Flatten(), layers.Dense(1)])
        model.compile("sgd", "mse", run_eagerly=run_eagerly)
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)  # 6 steps
        return model, augment

    (traced, traced_augment), (eager, eager_augment) = trained(False), trained(True)
    # a traced step that replayed its trace's draw would train on other images: other weights, and fewer draws
    for a, b in zip(traced.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(traced_augment(x[:8]), eager_augment(x[:8]))


def test_augmentation_in_dataset_map_as_the_tutorial_writes_it():
    rng = np.random.default_rng(11)
    x, y = rng.random((6, 8, 8, 3)).astype(np.float32), np.arange(6)
    augment = keras.Sequential([layers.RandomFlip("horizontal_and_vertical"), layers.RandomRotation(0.2)])
    resize_and_rescale = keras.Sequential([layers.Resizing(4, 4), layers.Rescaling(1.0 / 255)])
    ds = mt.data.Dataset.from_tensor_slices((x, y)).batch(3)
    ds = ds.map(lambda a, b: (resize_and_rescale(a), b)).map(lambda a, b: (augment(a, training=True), b))
    first, second = list(ds), list(ds)
    assert [tuple(a.shape) for a, _ in first] == [(3, 4, 4, 3), (3, 4, 4, 3)]
    assert [b.numpy().tolist() for _, b in first] == [[0, 1, 2], [3, 4, 5]]
    assert not np.allclose(first[0][0], second[0][0])  # each pass draws anew
    model = keras.Sequential([keras.Input((4, 4, 3)), layers.Flatten(), layers.Dense(6)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2


def test_get_config_rebuilds_each_image_layer():
    for layer in [
        layers.Resizing(3, 4, interpolation="nearest", pad_to_aspect_ratio=True, fill_value=1.0),
        layers.CenterCrop(2, 2),
        layers.RandomRotation((-0.1, 0.3), fill_mode="wrap", seed=3),
        layers.RandomZoom(0.2, (-0.1, 0.1), interpolation="nearest"),
        layers.RandomContrast(0.4, value_range=(0, 1)),
    ]:
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == {**layer.get_config(), "name": again.name}
        out, out_again = layer(IMG, training=False), again(IMG, training=False)
        np.testing.assert_array_equal(out, out_again)


def test_resizing_gives_integer_images_back_in_their_dtype_rounded_as_keras():
    # Keras 3.15 (TF 2.21): Resizing(3, 3) of this uint8 image is uint8 [[14 37 60] [105 128 150] [196 218 241]], of
    # its float32 copy [[14.17 36.83 59.5] ...]; nearest keeps uint8; int32 stays int32, float64 becomes float32
    x = (np.arange(16) * 17 % 256).reshape(1, 4, 4, 1).astype("uint8")
    resized = keras.layers.Resizing(3, 3)(x)
    assert resized.dtype == mt.uint8
    np.testing.assert_array_equal(resized.numpy()[0, :, :, 0], [[14, 37, 60], [105, 128, 150], [196, 218, 241]])
    floats = keras.layers.Resizing(3, 3)(x.astype("float32")).numpy()[0, :, :, 0]
    np.testing.assert_allclose(floats[0], [14.166669, 36.833336, 59.500008], rtol=1e-6)
    nearest = keras.layers.Resizing(3, 3, interpolation="nearest")(x)
    assert nearest.dtype == mt.uint8
    np.testing.assert_array_equal(nearest.numpy()[0, :, :, 0], [[0, 34, 51], [136, 170, 187], [204, 238, 255]])
    assert keras.layers.Resizing(3, 3)(x.astype("int32")).dtype == mt.int32
    assert keras.layers.Resizing(3, 3)(x.astype("float64")).dtype == mt.float32
