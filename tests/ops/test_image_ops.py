"""`mt.image`: resize, flips, rot90, central_crop, resize_with_crop_or_pad, adjust_brightness, and the sampler op
under them (ResampleImage). Numbers marked "TensorFlow 2.21" are what TensorFlow 2.21 printed for the same call."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.ops.image_ops import resample, transform_points

X = np.arange(2 * 4 * 6, dtype=np.float32).reshape(2, 4, 6, 1)  # two 4x6 images, pixel i holds i


def pixels(t):
    return np.asarray(t)[..., 0].tolist()


def test_resize_bilinear_and_nearest_give_tensorflows_values_and_dtypes():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    # TensorFlow 2.21: tf.image.resize(x, [3, 5]) and with method="nearest"
    bilinear = [
        [0.666667, 1.366667, 2.166667, 2.966667, 3.666667],
        [6.0, 6.7, 7.5, 8.3, 9.0],
        [11.333334, 12.033334, 12.833334, 13.633334, 14.333334],
    ]
    np.testing.assert_allclose(pixels(mt.image.resize(x, [3, 5]))[0], bilinear, rtol=1e-6)
    nearest = mt.image.resize(x, [3, 5], method=mt.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert pixels(nearest)[0] == [[0, 1, 2, 2, 3], [8, 9, 10, 10, 11], [12, 13, 14, 14, 15]]
    # TensorFlow 2.21: bilinear gives float32 for every input dtype, nearest keeps the dtype
    assert mt.image.resize(x.astype(np.float64), [2, 2]).dtype == mt.float32
    assert mt.image.resize(x.astype(np.uint8), [2, 2]).dtype == mt.float32
    assert mt.image.resize(x.astype(np.int32), [3, 3], method="nearest").dtype == mt.int32
    assert mt.image.resize(np.full((1, 2, 2, 1), 255, np.uint8), [3, 3]).numpy().ravel().tolist() == [255.0] * 9
    assert mt.image.resize(x[0], [3, 3]).shape == (3, 3, 1)


def test_resize_preserving_the_aspect_ratio_fits_inside_the_size():
    # TensorFlow 2.21's shapes
    assert mt.image.resize(X, [3, 3], preserve_aspect_ratio=True).shape == (2, 2, 3, 1)
    assert mt.image.resize(X, [10, 3], preserve_aspect_ratio=True).shape == (2, 2, 3, 1)
    assert mt.image.resize(np.zeros((1, 5, 7, 1)), [4, 4], preserve_aspect_ratio=True).shape == (1, 3, 4, 1)
    assert mt.image.resize(np.zeros((1, 7, 5, 1)), [9, 9], preserve_aspect_ratio=True).shape == (1, 9, 6, 1)


def test_resize_refuses_bad_input_with_tensorflows_errors():
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        mt.image.resize(np.zeros((4, 4)), [2, 2])
    with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements: new_height, new_width"):
        mt.image.resize(X, [2, 2, 2])
    with pytest.raises(ValueError, match="'size' must be a 1-D int32 Tensor"):
        mt.image.resize(X, [2.5, 2])
    with pytest.raises(mt.errors.InvalidArgumentError, match="output dimensions must be positive"):
        mt.image.resize(X, [0, 2])
    with pytest.raises(ValueError, match="Resize method is not implemented: foo"):
        mt.image.resize(X, [2, 2], method="foo")
    with pytest.raises(NotImplementedError, match="'bicubic' method is not in minitape"):
        mt.image.resize(X, [2, 2], method="bicubic")
    with pytest.raises(NotImplementedError, match="antialias=True when shrinking"):
        mt.image.resize(X, [2, 2], antialias=True)
    assert mt.image.resize(X, [8, 8], antialias=True).shape == (2, 8, 8, 1)  # growing: antialias changes nothing


def test_flips_and_quarter_turns_give_tensorflows_pixels():
    image = X[0]
    # TensorFlow 2.21
    assert pixels(mt.image.flip_left_right(image))[0] == [5, 4, 3, 2, 1, 0]
    assert pixels(mt.image.flip_up_down(image))[0] == [18, 19, 20, 21, 22, 23]
    assert pixels(mt.image.rot90(image)) == [[5, 11, 17, 23], [4, 10, 16, 22], [3, 9, 15, 21], [2, 8, 14, 20],
                                             [1, 7, 13, 19], [0, 6, 12, 18]]  # fmt: skip
    assert pixels(mt.image.rot90(X, 3))[0][:2] == [[18, 12, 6, 0], [19, 13, 7, 1]]
    assert pixels(mt.image.rot90(X, 2))[0][0] == [23, 22, 21, 20, 19, 18]
    assert mt.image.rot90(X, -1).shape == (2, 6, 4, 1)
    np.testing.assert_array_equal(mt.image.rot90(X, 4), X)
    with pytest.raises(ValueError, match=r"'image' \(shape \(4, 4\)\) must be at least three-dimensional."):
        mt.image.flip_left_right(np.zeros((4, 4)))


def test_random_flip_left_right_flips_each_image_of_a_batch_on_its_own():
    images = np.random.default_rng(0).random((40, 3, 3, 1))
    out = np.asarray(mt.image.random_flip_left_right(images))
    flipped = np.all(out == images[:, :, ::-1], axis=(1, 2, 3))
    assert np.all(flipped | np.all(out == images, axis=(1, 2, 3))) and 5 < flipped.sum() < 35
    up_down = np.asarray(mt.image.random_flip_up_down(images[0]))
    assert np.array_equal(up_down, images[0]) or np.array_equal(up_down, images[0, ::-1])


def test_central_crop_and_resize_with_crop_or_pad_give_tensorflows_boxes():
    # TensorFlow 2.21
    assert pixels(mt.image.central_crop(X[0], 0.5)) == [[7, 8, 9, 10], [13, 14, 15, 16]]
    assert mt.image.central_crop(X, 0.3).shape == (2, 2, 2, 1)
    assert mt.image.central_crop(np.zeros((7, 9, 1)), 0.35).shape == (3, 5, 1)
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        mt.image.central_crop(X, 0.0)
    assert pixels(mt.image.resize_with_crop_or_pad(X[0], 3, 8)) == [
        [0, 0, 1, 2, 3, 4, 5, 0], [0, 6, 7, 8, 9, 10, 11, 0], [0, 12, 13, 14, 15, 16, 17, 0]
    ]  # fmt: skip
    assert pixels(mt.image.resize_with_crop_or_pad(X, 7, 3))[0] == [
        [0, 0, 0], [1, 2, 3], [7, 8, 9], [13, 14, 15], [19, 20, 21], [0, 0, 0], [0, 0, 0]
    ]  # fmt: skip
    with pytest.raises(ValueError, match="target_height must be > 0."):
        mt.image.resize_with_crop_or_pad(X, 0, 3)


def test_adjust_brightness_adds_on_the_unit_scale_and_saturates_integers():
    # TensorFlow 2.21
    assert mt.image.adjust_brightness(X[0], 0.5).numpy()[0, :3, 0].tolist() == [0.5, 1.5, 2.5]
    bright = mt.image.adjust_brightness(np.full((2, 2, 1), 200, np.uint8), 0.5)
    assert bright.dtype == mt.uint8 and bright.numpy().ravel().tolist() == [255] * 4
    assert mt.image.adjust_brightness(np.full((2, 2, 1), 100, np.uint8), -0.1).numpy().ravel().tolist() == [74] * 4
    assert mt.image.adjust_brightness(np.full((2, 2, 1), 100, np.uint8), 0.1).numpy().ravel().tolist() == [125] * 4
    assert mt.image.adjust_brightness(X.astype(np.float64), 0.5).dtype == mt.float64
    v = mt.Variable(X)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.image.adjust_brightness(v, 0.3) * 2)
    assert np.all(tape.gradient(y, v).numpy() == 2.0)  # TensorFlow 2.21: 2 everywhere


@pytest.mark.parametrize(
    "f",
    [
        lambda x: mt.image.resize(x, [2, 3], method="nearest"),
        lambda x: mt.image.rot90(x, 1),
        lambda x: mt.image.central_crop(x, 0.5),
        lambda x: mt.image.resize_with_crop_or_pad(x, 5, 3),
        lambda x: mt.image.flip_up_down(x),
    ],
)
def test_image_op_gradients_agree_with_finite_differences(f):
    check_gradients(f, [np.random.default_rng(1).random((2, 4, 6, 2))], order=2)


def test_bilinear_resize_gradients_agree_with_finite_differences_in_float32():
    # bilinear resizing computes in float32; it is linear, so a wide step loses nothing but float32's rounding
    images = np.random.default_rng(1).random((2, 4, 6, 2))
    check_gradients(lambda x: mt.image.resize(x, [3, 7]), [images], order=2, eps=1e-2, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fill_mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_the_sampler_and_its_adjoint_differentiate_to_every_order(fill_mode, interpolation):
    # a projective transform (c0, c1 not 0) with some points outside the image and one line sent to infinity
    transforms = [[0.9, -0.3, 1.2, 0.35, 1.1, -0.7, 0.0, 0.0], [1.3, 0.2, -2.1, -0.1, 0.8, 1.9, 0.25, -0.5]]
    points = transform_points(np.array(transforms, np.float32), (4, 7))
    assert np.isnan(points[1]).any()  # 0.25 x - 0.5 y + 1 = 0 at (x, y) = (0, 2) and (4, 4)
    images = np.random.default_rng(2).random((2, 5, 6, 3))
    check_gradients(lambda x: resample(x, points, interpolation, fill_mode, 0.25), [images], order=2)
    out = resample(images, points, interpolation, fill_mode, 0.25)
    assert out.shape == (2, 4, 7, 3) and np.all(out.numpy()[1, 2, 0] == 0.25)  # the point at infinity: the fill


def test_resize_in_a_traced_function_gives_the_eager_values():
    resize = mt.function(lambda x: mt.image.resize(x, [5, 3]))
    for seed in (0, 1):
        x = np.random.default_rng(seed).random((2, 4, 6, 1)).astype(np.float32)
        np.testing.assert_array_equal(resize(x), mt.image.resize(x, [5, 3]))
    flip = mt.function(lambda x: mt.image.random_flip_left_right(x))
    x = np.random.default_rng(3).random((30, 2, 2, 1)).astype(np.float32)
    assert not np.array_equal(flip(x), flip(x))  # a traced random flip draws anew at every call
