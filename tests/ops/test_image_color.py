"""`mt.image`'s colour functions (grayscale, HSV, saturation, hue, gamma, standardization, contrast on integer
images) and random augmentations (random_* and stateless_random_*). Numbers marked "TensorFlow 2.21" are what
TensorFlow 2.21 printed for the same call; the random ones' numbers are minitape's own (numpy's generator), so
their tests check shapes, dtypes, ranges and that a seed reproduces them."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

X = np.array([[[0.1, 0.5, 0.9], [0.8, 0.2, 0.3]], [[0.0, 0.0, 0.0], [1.0, 0.6, 0.6]]], np.float32)
U = (X * 255).astype(np.uint8)  # [[[25, 127, 229], [204, 51, 76]], [[0, 0, 0], [255, 153, 153]]]


def flat(t):
    return np.asarray(t).ravel().tolist()


def test_grayscale_gives_tensorflows_luma_and_dtypes():
    # TensorFlow 2.21
    np.testing.assert_allclose(flat(mt.image.rgb_to_grayscale(X)), [0.42599, 0.39072, 0.0, 0.7195], rtol=1e-6)
    gray = mt.image.rgb_to_grayscale(U)
    assert gray.dtype == mt.uint8 and gray.shape == (2, 2, 1) and flat(gray) == [108, 99, 0, 183]
    big = mt.image.rgb_to_grayscale(U.astype(np.int32) * 1000000)  # int32 on the [0, 1] scale: its max, 2**31 - 1
    assert flat(big) == [108127504, 99576600, 0, 183472496]
    assert mt.image.rgb_to_grayscale(X.astype(np.float64)).dtype == mt.float64
    assert mt.image.rgb_to_grayscale(np.stack([X, X])).shape == (2, 2, 2, 1)
    rgb = mt.image.grayscale_to_rgb(mt.image.rgb_to_grayscale(X))
    assert rgb.shape == (2, 2, 3) and np.all(rgb.numpy() == rgb.numpy()[..., :1])


def test_grayscale_refuses_what_tensorflow_refuses():
    with pytest.raises(mt.errors.InvalidArgumentError, match="must have 3 channels .* but has 4"):
        mt.image.rgb_to_grayscale(np.zeros((2, 2, 4), np.float32))
    # TensorFlow 2.21's words
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1"):
        mt.image.grayscale_to_rgb(X)
    with pytest.raises(ValueError, match=r"A grayscale image \(shape \(1,\)\) must be at least two-dimensional."):
        mt.image.grayscale_to_rgb([1.0])


def test_hsv_gives_tensorflows_values_both_ways():
    hsv = mt.image.rgb_to_hsv(X)
    # TensorFlow 2.21: tf.image.rgb_to_hsv(X)
    tf_hsv = [0.58333337, 0.8888888, 0.9, 0.9722222, 0.75, 0.8, 0.0, 0.0, 0.0, 0.0, 0.4, 1.0]
    np.testing.assert_allclose(flat(hsv), tf_hsv, rtol=1e-6)
    # TensorFlow 2.21: tf.image.hsv_to_rgb of that
    back = [0.10000005, 0.4999998, 0.9, 0.8, 0.2, 0.30000019, 0.0, 0.0, 0.0, 1.0, 0.6, 0.6]
    np.testing.assert_allclose(flat(mt.image.hsv_to_rgb(hsv)), back, rtol=1e-6, atol=1e-7)
    assert mt.image.rgb_to_hsv(X.astype(np.float64)).dtype == mt.float64
    with pytest.raises(mt.errors.InvalidArgumentError, match="'T' of uint8 is not in the list of allowed values"):
        mt.image.rgb_to_hsv(U)
    # TensorFlow 2.21: FailedPreconditionError "input must have 3 channels but input only has 2 channels."
    with pytest.raises(mt.errors.FailedPreconditionError, match="must have 3 channels .* but has 2"):
        mt.image.hsv_to_rgb(np.zeros((2, 2, 2), np.float32))
    with pytest.raises(mt.errors.FailedPreconditionError, match="must have 3 channels .* but has 4"):
        mt.image.rgb_to_hsv(np.zeros((2, 2, 4), np.float32))


def test_hsv_gradients_are_tensorflows_and_agree_with_finite_differences():
    v = mt.Variable(X[:1])  # the first row: no two channels of a pixel equal
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.image.rgb_to_hsv(v) * [1.0, 2.0, 3.0])
    # TensorFlow 2.21 (its RGBToHSV gradient)
    tf_grad = [-2.1180556, -0.20833336, 3.3510804, 3.6712964, -2.2685184, -0.2777778]
    np.testing.assert_allclose(flat(tape.gradient(y, v)), tf_grad, rtol=1e-5)
    images = np.random.default_rng(0).uniform(0.05, 0.95, (2, 3, 4, 3))
    check_gradients(mt.image.rgb_to_hsv, [images])
    check_gradients(mt.image.hsv_to_rgb, [np.random.default_rng(1).uniform(0.02, 0.98, (2, 3, 4, 3))])
    # grayscale computes in float32, as TensorFlow: it is linear, so a wide step loses nothing but float32's rounding
    check_gradients(mt.image.rgb_to_grayscale, [images], order=2, eps=1e-2, rtol=1e-4, atol=1e-4)
    check_gradients(lambda x: mt.image.grayscale_to_rgb(x[..., :1]), [images], order=2)


def test_adjust_saturation_and_hue_give_tensorflows_values_and_dtypes():
    # TensorFlow 2.21
    cases = {
        (mt.image.adjust_saturation, 3.0): (
            [0.0, 0.45, 0.9, 0.8, 0.0, 0.13333359, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            [0, 114, 229, 204, 0, 33, 0, 0, 0, 255, 0, 0],
        ),
        (mt.image.adjust_saturation, 0.4): (
            [0.58, 0.74, 0.9, 0.8, 0.56, 0.6, 0.0, 0.0, 0.0, 1.0, 0.84, 0.84],
            [147, 188, 229, 204, 143, 153, 0, 0, 0, 255, 214, 214],
        ),
        (mt.image.adjust_hue, 0.2): (
            [0.66, 0.1, 0.9, 0.78, 0.8, 0.2, 0.0, 0.0, 0.0, 0.92, 1.0, 0.6],
            [168, 25, 229, 198, 204, 51, 0, 0, 0, 235, 255, 153],
        ),
        (mt.image.adjust_hue, -0.7): (
            [0.9, 0.1, 0.66, 0.42, 0.8, 0.2, 0.0, 0.0, 0.0, 0.68, 1.0, 0.6],
            [229, 25, 168, 106, 204, 51, 0, 0, 0, 173, 255, 153],
        ),
    }
    for (adjust, factor), (floats, uint8s) in cases.items():
        np.testing.assert_allclose(flat(adjust(X, factor)), floats, atol=1e-6)
        out = adjust(U, factor)
        assert out.dtype == mt.uint8 and flat(out) == uint8s
        assert adjust(X.astype(np.float64), factor).dtype == mt.float64
        assert adjust(X.astype(np.float16), factor).dtype == mt.float16
    batch = mt.image.adjust_hue(np.stack([X, X[::-1]]), 0.3)  # TensorFlow 2.21: the first image's last pixel
    assert batch.shape == (2, 2, 2, 3) and np.allclose(batch.numpy()[0, 1, 1], [0.68, 1.0, 0.6], atol=1e-6)
    saturated = mt.image.adjust_saturation(U.astype(np.int32) * 1000000, 2.0)  # TensorFlow 2.21
    assert flat(saturated) == [0, 114500000, 229000000, 204000000, 0, 33333344, 0, 0, 0, 255000000, 51000000] + [
        51000000
    ]


def test_adjust_saturation_and_hue_refuse_bad_input_and_have_no_gradient():
    # TensorFlow 2.21's words
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        mt.image.adjust_hue(X, 1.5)
    with pytest.raises(mt.errors.InvalidArgumentError, match="input must have 3 channels"):
        mt.image.adjust_saturation(np.zeros((2, 2, 4), np.float32), 2.0)
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"input must be at least 3-D, got shape \[2, 2\]"):
        mt.image.adjust_hue(np.zeros((2, 2), np.float32), 0.1)
    v = mt.Variable(X)
    for adjust in (mt.image.adjust_saturation, mt.image.adjust_hue):
        with mt.GradientTape() as tape:
            y = mt.reduce_sum(adjust(v, 0.3))
        with pytest.raises(LookupError, match="AdjustSaturation|AdjustHue"):  # TensorFlow registers none either
            tape.gradient(y, v)


def test_adjust_gamma_gives_tensorflows_values_and_gradients():
    # TensorFlow 2.21
    gamma = [0.015, 0.375, 1.215, 0.96, 0.06, 0.135, 0.0, 0.0, 0.0, 1.5, 0.54, 0.54]
    np.testing.assert_allclose(flat(mt.image.adjust_gamma(X, 2.0, 1.5)), gamma, rtol=1e-6)
    out = mt.image.adjust_gamma(U, 0.5, 1.0)
    assert out.dtype == mt.uint8 and flat(out) == [80, 180, 242, 228, 114, 139, 0, 0, 0, 255, 197, 197]
    assert flat(mt.image.adjust_gamma(U.astype(np.int32), 2.0)) == [0] * 12
    assert mt.image.adjust_gamma(X.astype(np.float64), 2.0).dtype == mt.float64
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
        mt.image.adjust_gamma(X, -1.0)
    images = np.random.default_rng(2).uniform(0.1, 1, (2, 2, 3))  # computed in float32, as TensorFlow: a wide step
    check_gradients(lambda x: mt.image.adjust_gamma(x, 1.7, 0.8), [images], eps=1e-3, rtol=1e-3, atol=1e-3)


def test_per_image_standardization_gives_tensorflows_values_in_float32():
    # TensorFlow 2.21
    std = [-0.90271717, 0.23755719, 1.3778315, 1.092763, -0.6176486, -0.33257997] + [-1.1877857] * 3
    std += [1.6629002, 0.52262586, 0.52262586]
    np.testing.assert_allclose(flat(mt.image.per_image_standardization(X)), std, rtol=1e-5)
    out = mt.image.per_image_standardization(U)
    assert out.dtype == mt.float32
    np.testing.assert_allclose(flat(out)[:3], [-0.90660113, 0.23387137, 1.3743439], rtol=1e-5)
    assert mt.image.per_image_standardization(X.astype(np.float64)).dtype == mt.float32
    assert flat(mt.image.per_image_standardization(np.ones((2, 2, 3), np.float32))) == [0.0] * 12
    batch = mt.image.per_image_standardization(np.stack([X, X * 2]))
    np.testing.assert_allclose(flat(batch[1]), std, rtol=1e-5)  # TensorFlow 2.21: each image on its own
    with pytest.raises(ValueError, match=r"'image' \(shape \(2, 2\)\) must be at least three-dimensional."):
        mt.image.per_image_standardization(np.zeros((2, 2), np.float32))
    images = np.random.default_rng(3).random((2, 3, 2, 3))  # computed in float32, as TensorFlow: a wide step
    check_gradients(mt.image.per_image_standardization, [images], eps=1e-3, rtol=1e-3, atol=1e-3)


def test_adjust_contrast_converts_integer_images_as_tensorflow_does():
    out = mt.image.adjust_contrast(U, 1.7)  # TensorFlow 2.21
    assert out.dtype == mt.uint8 and flat(out) == [0, 158, 255, 255, 28, 49, 0, 0, 0, 255, 202, 180]
    assert mt.image.adjust_contrast(X.astype(np.float64), 1.7).dtype == mt.float64


RANDOM = {
    "brightness": (mt.image.random_brightness, mt.image.stateless_random_brightness, (0.3,)),
    "contrast": (mt.image.random_contrast, mt.image.stateless_random_contrast, (0.2, 0.9)),
    "saturation": (mt.image.random_saturation, mt.image.stateless_random_saturation, (0.2, 0.9)),
    "hue": (mt.image.random_hue, mt.image.stateless_random_hue, (0.3,)),
}


@pytest.mark.parametrize("kind", RANDOM)
def test_random_adjustments_keep_shape_and_dtype_and_a_stateless_seed_repeats(kind):
    random, stateless, args = RANDOM[kind]
    batch = np.stack([U, U[::-1]])
    for image in (U, X, batch):
        assert random(image, *args).shape == image.shape and random(image, *args).dtype == image.dtype
        out = stateless(image, *args, seed=(1, 2))
        assert out.dtype == image.dtype and np.array_equal(out, stateless(image, *args, seed=(1, 2)))
    draws = {flat(stateless(X, *args, seed=(i, 0)))[0] for i in range(6)}
    assert len(draws) > 1  # another seed, another factor
    mt.random.set_seed(5)
    first = random(X, *args)
    mt.random.set_seed(5)
    assert np.array_equal(first, random(X, *args))
    # TensorFlow 2.21's error for a seed that is not two integers
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[\]"):
        stateless(X, *args, seed=1)


def test_random_brightness_stays_within_max_delta():
    deltas = [float(mt.image.stateless_random_brightness(X, 0.25, seed=(i, 0))[0, 0, 0]) - 0.1 for i in range(40)]
    assert -0.25 <= min(deltas) < -0.1 and 0.1 < max(deltas) < 0.25


def test_random_adjustments_refuse_tensorflows_bad_ranges():
    # TensorFlow 2.21's words
    bad = [
        (lambda: mt.image.random_brightness(X, -0.1), "max_delta must be non-negative."),
        (lambda: mt.image.random_contrast(X, 0.5, 0.4), "upper must be > lower."),
        (lambda: mt.image.stateless_random_contrast(X, -0.5, 0.4, seed=(1, 2)), "lower must be non-negative."),
        (lambda: mt.image.random_saturation(X, 0.5, 0.5), "upper must be > lower."),
        (lambda: mt.image.random_hue(X, 0.6), "max_delta must be <= 0.5."),
        (lambda: mt.image.stateless_random_hue(X, -0.1, seed=(1, 2)), "max_delta must be non-negative."),
    ]
    for call, message in bad:
        with pytest.raises(ValueError, match=message):
            call()


def test_random_crop_takes_a_piece_of_the_given_size():
    image = np.arange(5 * 6 * 3, dtype=np.float32).reshape(5, 6, 3)
    crops = [mt.image.stateless_random_crop(image, [3, 4, 3], seed=(i, 1)).numpy() for i in range(12)]
    assert all(c.shape == (3, 4, 3) for c in crops)
    corners = {(int(c[0, 0, 0]) // 18, int(c[0, 0, 0]) % 18 // 3) for c in crops}
    assert len(corners) > 1 and all(0 <= r <= 2 and 0 <= k <= 2 for r, k in corners)
    for c in crops:  # each crop is the block of the image at its corner
        r, k = int(c[0, 0, 0]) // 18, int(c[0, 0, 0]) % 18 // 3
        assert np.array_equal(c, image[r : r + 3, k : k + 4])
    assert np.array_equal(crops[0], mt.image.stateless_random_crop(image, [3, 4, 3], seed=(0, 1)))
    assert mt.image.random_crop(np.stack([image] * 4), [2, 3, 3, 3]).shape == (2, 3, 3, 3)
    assert mt.image.random_crop(U, [1, 2, 3], seed=7).dtype == mt.uint8
    # TensorFlow 2.21's words
    with pytest.raises(mt.errors.InvalidArgumentError, match=r"Need value.shape >= size, got \[2, 2, 3\] \[3, 2, 3\]"):
        mt.image.random_crop(X, [3, 2, 3])
    with pytest.raises(mt.errors.InvalidArgumentError, match="Incompatible shapes"):
        mt.image.stateless_random_crop(X, [2, 2], seed=(1, 2))
    v = mt.Variable(image)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.image.stateless_random_crop(v, [3, 4, 3], seed=(0, 1)))
    assert tape.gradient(y, v).numpy().sum() == 3 * 4 * 3  # ones where the crop read, zeros elsewhere


def test_stateless_flips_draw_each_image_from_the_seed():
    batch = np.arange(20 * 2 * 3, dtype=np.float32).reshape(20, 2, 3, 1)
    for flip, plain in (
        (mt.image.stateless_random_flip_left_right, mt.image.flip_left_right),
        (mt.image.stateless_random_flip_up_down, mt.image.flip_up_down),
    ):
        out = flip(batch, seed=(3, 4)).numpy()
        flipped = [np.array_equal(o, f) for o, f in zip(out, plain(batch).numpy())]
        kept = [np.array_equal(o, b) for o, b in zip(out, batch)]
        assert all(f != k for f, k in zip(flipped, kept)) and 0 < sum(flipped) < 20
        assert np.array_equal(out, flip(batch, seed=(3, 4)))
        assert flip(U, seed=(1, 1)).dtype == mt.uint8


def test_stateless_random_jpeg_quality_says_it_is_not_in_minitape():
    with pytest.raises(NotImplementedError, match="stateless_random_jpeg_quality is not in minitape: .* JPEG codec"):
        mt.image.stateless_random_jpeg_quality(U, 50, 90, seed=(1, 2))


def test_traced_functions_give_the_eager_values_and_draw_anew():
    colours = mt.function(lambda x: mt.image.adjust_hue(mt.image.adjust_saturation(x, 1.5), 0.1))
    gray = mt.function(lambda x: mt.image.per_image_standardization(mt.image.rgb_to_grayscale(x)))
    for seed in (0, 1):
        x = np.random.default_rng(seed).random((2, 3, 4, 3)).astype(np.float32)
        np.testing.assert_array_equal(colours(x), mt.image.adjust_hue(mt.image.adjust_saturation(x, 1.5), 0.1))
        np.testing.assert_array_equal(gray(x), mt.image.per_image_standardization(mt.image.rgb_to_grayscale(x)))
    crop = mt.function(lambda x, seed: mt.image.stateless_random_crop(x, [2, 2, 1], seed=seed))
    image = np.arange(36, dtype=np.float32).reshape(6, 6, 1)
    for seed in ([0, 1], [5, 1], [0, 1]):  # the seed a tensor: each call's own seed, as eagerly
        s = mt.constant(seed)
        np.testing.assert_array_equal(crop(image, s), mt.image.stateless_random_crop(image, [2, 2, 1], seed=s))
    gamma = mt.function(lambda x, g: mt.image.adjust_gamma(x, g))  # gamma a tensor: checked at each call
    hue = mt.function(lambda x, d: mt.image.adjust_hue(x, d))
    brightness = mt.function(lambda x, s: mt.image.stateless_random_brightness(x, 0.5, s))
    for g, d, s in ((2.0, 0.2, [1, 2]), (0.5, -0.3, [3, 2])):
        np.testing.assert_allclose(gamma(X, mt.constant(g)), X**g, rtol=1e-6)
        np.testing.assert_array_equal(hue(X, mt.constant(d)), mt.image.adjust_hue(X, d))
        np.testing.assert_array_equal(brightness(X, mt.constant(s)), mt.image.stateless_random_brightness(X, 0.5, s))
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
        gamma(X, mt.constant(-1.0))
    bright = mt.function(lambda x: mt.image.random_brightness(x, 0.5))
    assert not np.array_equal(bright(X), bright(X))  # a traced random op draws anew at every call
