# ruff: noqa: F841, B018 - the tutorial's unused `ax` and its bare `x` kept as written
"""Port of TensorFlow's tutorial "Data augmentation" (site/en/tutorials/images/data_augmentation.ipynb).

The cells run with `import minitape as tf` and `from minitape.keras import layers`, in the tutorial's order. What
differs, and why:
- no download: tfds' tf_flowers (photos of five kinds of flower) becomes 40 synthetic uint8 images of 240x320
  (`synthetic_flowers`: rings of a colour and a spacing per class, plus noise, made with numpy from a seed), split
  32/4/4 as the tutorial's 80%/10%/10% (`as_supervised` pairs); `metadata` (num_classes, int2str) is replaced by
  the five class names;
- IMG_SIZE is 64, not 180, and the model trains one epoch on one batch (time); the plots are drawn with matplotlib
  on the Agg backend and closed;
- Keras 3.15 refuses cell 31 for this input: the tutorial called `resize_and_rescale` and `data_augmentation`
  first on the 240x320 image, and a Keras 3 Sequential with no Input keeps the shape of its first call, so the
  64x64 images of the combined model do not fit it (ValueError "expected shape=(None, 240, 320, 3), found
  shape=(64, 64, 3)"). minitape's Sequential does not keep that shape, so the cell runs here;
- `stateless_random_jpeg_quality` (mentioned in the tutorial, not called) raises NotImplementedError: there is no
  JPEG codec.

The deterministic numbers (the synthetic data's checksum, the rescaled image's min and max, grayscale, saturation
and brightness checksums, shapes and dtypes, the parameter count) are what TensorFlow 2.21 printed for the same
script (2026-11-28). The random augmentations' numbers are minitape's own (numpy's generator): their shapes,
dtypes and ranges are checked, and that a stateless seed gives the same result twice.
"""

import numpy as np
import pytest
from matplotlib import pyplot as plt

import minitape as tf
from minitape.keras import layers

plt.switch_backend("Agg")
pytestmark = pytest.mark.usefixtures("keras_session")

IMG_SIZE = 64
batch_size = 32
AUTOTUNE = tf.data.AUTOTUNE
CLASS_NAMES = ["dandelion", "daisy", "tulips", "sunflowers", "roses"]  # tf_flowers' labels
num_classes = len(CLASS_NAMES)


def synthetic_flowers(n=40, seed=0):
    """(images (n, 240, 320, 3) uint8, labels (n,) int64): concentric rings, their colour and spacing by class."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:240, 0:320].astype(np.float32)
    labels = rng.integers(0, 5, n)
    images = []
    for label in labels:
        centre = rng.uniform([60, 80], [180, 240])
        radius = np.hypot(yy - centre[0], xx - centre[1])
        petal = (np.cos(radius / (6 + 3 * label)) + 1) / 2
        colour = np.array([200 - 30 * label, 60 + 35 * label, 90 + 20 * (label % 3)], np.float32)
        image = petal[..., None] * colour + rng.normal(0, 12, (240, 320, 3))
        images.append(np.clip(image, 0, 255).astype(np.uint8))
    return np.stack(images), labels.astype(np.int64)


def load_splits():
    """The tutorial's tfds.load(..., split=['train[:80%]', 'train[80%:90%]', 'train[90%:]'], as_supervised=True)."""
    ds = tf.data.Dataset.from_tensor_slices(synthetic_flowers())
    return ds.take(32), ds.skip(32).take(4), ds.skip(36)


def test_the_synthetic_data_is_the_same_as_in_the_tensorflow_run():
    images, labels = synthetic_flowers()
    # TensorFlow 2.21's run of the same script printed these
    assert images.shape == (40, 240, 320, 3) and int(images.sum()) == 569673895
    assert labels[:8].tolist() == [4, 3, 2, 1, 1, 0, 0, 0]


def test_cells_16_to_31_preprocessing_layers(capsys):
    train_ds, _, _ = load_splits()
    image, label = next(iter(train_ds))  # cell 12
    _ = plt.imshow(image)
    _ = plt.title(CLASS_NAMES[int(label)])

    resize_and_rescale = tf.keras.Sequential([layers.Resizing(IMG_SIZE, IMG_SIZE), layers.Rescaling(1.0 / 255)])
    result = resize_and_rescale(image)  # cell 19
    _ = plt.imshow(result)
    print("Min and max pixel values:", result.numpy().min(), result.numpy().max())  # cell 21
    # TensorFlow 2.21: "Min and max pixel values: 0.0 0.8941177", float32 (64, 64, 3)
    assert capsys.readouterr().out == "Min and max pixel values: 0.0 0.8941177\n"
    assert result.shape == (IMG_SIZE, IMG_SIZE, 3) and result.dtype == tf.float32
    # TensorFlow 2.21: the top left pixel and the sum
    np.testing.assert_allclose(result.numpy()[0, 0], [0.28382355, 0.75343144, 0.4544118], rtol=1e-6)
    assert float(result.numpy().sum()) == pytest.approx(2930.8535, rel=1e-6)

    data_augmentation = tf.keras.Sequential(  # cell 25
        [
            layers.RandomFlip("horizontal_and_vertical"),
            layers.RandomRotation(0.2),
        ]
    )
    image = tf.cast(tf.expand_dims(image, 0), tf.float32)  # cell 26
    plt.figure(figsize=(10, 10))  # cell 27
    augmented = []
    for i in range(9):
        augmented_image = data_augmentation(image)
        ax = plt.subplot(3, 3, i + 1)
        plt.imshow(augmented_image[0] / 255)
        plt.axis("off")
        augmented.append(augmented_image.numpy())
    plt.close("all")
    assert all(a.shape == (1, 240, 320, 3) for a in augmented)  # TensorFlow 2.21: (1, 240, 320, 3) float32
    assert all(0 <= a.min() and a.max() <= 255 for a in augmented)  # reflected, never brighter than the image
    assert len({a.tobytes() for a in augmented}) == 9  # each call a new flip and angle

    model = tf.keras.Sequential(  # cell 31 (see the module docstring: Keras 3.15 refuses it for this input)
        [
            resize_and_rescale,
            data_augmentation,
            layers.Conv2D(16, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
        ]
    )
    assert model(image).shape == (1, IMG_SIZE // 2, IMG_SIZE // 2, 16)

    aug_ds = train_ds.map(lambda x, y: (resize_and_rescale(x, training=True), y))  # cell 35
    x, y = next(iter(aug_ds))
    assert x.shape == (IMG_SIZE, IMG_SIZE, 3) and y.shape == ()  # TensorFlow 2.21's shapes


def test_cells_41_to_49_prepare_and_train_the_tutorials_model():
    train_ds, val_ds, test_ds = load_splits()
    resize_and_rescale = tf.keras.Sequential([layers.Resizing(IMG_SIZE, IMG_SIZE), layers.Rescaling(1.0 / 255)])
    data_augmentation = tf.keras.Sequential([layers.RandomFlip("horizontal_and_vertical"), layers.RandomRotation(0.2)])

    def prepare(ds, shuffle=False, augment=False):  # cell 41
        # Resize and rescale all datasets.
        ds = ds.map(lambda x, y: (resize_and_rescale(x), y), num_parallel_calls=AUTOTUNE)

        if shuffle:
            ds = ds.shuffle(1000)

        # Batch all datasets.
        ds = ds.batch(batch_size)

        # Use data augmentation only on the training set.
        if augment:
            ds = ds.map(lambda x, y: (data_augmentation(x, training=True), y), num_parallel_calls=AUTOTUNE)

        # Use buffered prefetching on all datasets.
        return ds.prefetch(buffer_size=AUTOTUNE)

    train_ds = prepare(train_ds, shuffle=True, augment=True)  # cell 42
    val_ds = prepare(val_ds)
    test_ds = prepare(test_ds)
    x, y = next(iter(train_ds))
    assert x.shape == (32, IMG_SIZE, IMG_SIZE, 3) and x.dtype == tf.float32 and y.dtype == tf.int64
    assert 0 <= float(tf.reduce_min(x)) and float(tf.reduce_max(x)) <= 1

    model = tf.keras.Sequential(  # cell 44
        [
            layers.Conv2D(16, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Conv2D(32, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Conv2D(64, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(128, activation="relu"),
            layers.Dense(num_classes),
        ]
    )
    model.compile(  # cell 46
        optimizer="adam",
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    epochs = 1  # the tutorial trains 5 epochs
    history = model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=0)  # cell 48
    assert model.count_params() == 548645  # TensorFlow 2.21, for 64x64 images
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    assert np.isfinite(history.history["loss"][0]) and 0 <= history.history["val_accuracy"][0] <= 1

    loss, acc = model.evaluate(test_ds, verbose=0)  # cell 49
    assert np.isfinite(loss) and acc in (0.0, 0.25, 0.5, 0.75, 1.0)  # four test images


def random_invert_img(x, p=0.5):  # cell 51
    if tf.random.uniform([]) < p:
        x = 255 - x
    else:
        x
    return x


def test_cells_51_to_56_random_invert_as_a_lambda_layer_and_a_layer():
    train_ds, _, _ = load_splits()
    image, _ = next(iter(train_ds))
    image = tf.cast(tf.expand_dims(image, 0), tf.float32)

    def random_invert(factor=0.5):  # cell 52
        return layers.Lambda(lambda x: random_invert_img(x, factor))

    random_invert = random_invert()
    inverted = 0
    plt.figure(figsize=(10, 10))  # cell 53
    for i in range(9):
        augmented_image = random_invert(image)
        ax = plt.subplot(3, 3, i + 1)
        plt.imshow(augmented_image[0].numpy().astype("uint8"))
        plt.axis("off")
        if np.array_equal(augmented_image, 255 - image):
            inverted += 1
        else:
            assert np.array_equal(augmented_image, image)
    plt.close("all")
    assert 0 < inverted < 9  # the chance of all or none of 9 is 1 in 256

    class RandomInvert(layers.Layer):  # cell 55
        def __init__(self, factor=0.5, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return random_invert_img(x)

    out = RandomInvert()(image)  # cell 56
    _ = plt.imshow(out[0] / 255)
    plt.close("all")
    assert np.array_equal(out, image) or np.array_equal(out, 255 - image)


def visualize(original, augmented):  # cell 65
    fig = plt.figure()
    plt.subplot(1, 2, 1)
    plt.title("Original image")
    plt.imshow(original)

    plt.subplot(1, 2, 2)
    plt.title("Augmented image")
    plt.imshow(augmented)
    plt.close(fig)


def test_cells_63_to_85_the_tf_image_functions():
    train_ds, _, _ = load_splits()
    image, label = next(iter(train_ds))  # cell 63

    flipped = tf.image.flip_left_right(image)  # cell 68
    visualize(image, flipped)
    assert np.array_equal(flipped, image.numpy()[:, ::-1])

    grayscaled = tf.image.rgb_to_grayscale(image)  # cell 70
    visualize(image, tf.squeeze(grayscaled))
    # TensorFlow 2.21: (240, 320, 1) uint8, the sum and four pixels of row 100
    assert grayscaled.shape == (240, 320, 1) and grayscaled.dtype == tf.uint8
    assert int(grayscaled.numpy().sum(dtype=np.int64)) == 5501409
    assert grayscaled.numpy()[100, 100:104, 0].tolist() == [39, 52, 44, 29]

    saturated = tf.image.adjust_saturation(image, 3)  # cell 72
    visualize(image, saturated)
    assert saturated.dtype == tf.uint8 and int(saturated.numpy().sum(dtype=np.int64)) == 9325111  # TensorFlow 2.21
    assert saturated.numpy()[100, 100].tolist() == [36, 43, 0]

    bright = tf.image.adjust_brightness(image, 0.4)  # cell 74
    visualize(image, bright)
    assert bright.dtype == tf.uint8 and int(bright.numpy().sum(dtype=np.int64)) == 36870258  # TensorFlow 2.21

    cropped = tf.image.central_crop(image, central_fraction=0.5)  # cell 76
    visualize(image, cropped)
    rotated = tf.image.rot90(image)  # cell 78
    visualize(image, rotated)
    assert cropped.shape == (120, 160, 3) and rotated.shape == (320, 240, 3)  # TensorFlow 2.21

    for i in range(3):  # cells 81, 83, 85
        seed = (i, 0)  # tuple of size (2,)
        stateless_random_brightness = tf.image.stateless_random_brightness(image, max_delta=0.95, seed=seed)
        visualize(image, stateless_random_brightness)
        stateless_random_contrast = tf.image.stateless_random_contrast(image, lower=0.1, upper=0.9, seed=seed)
        visualize(image, stateless_random_contrast)
        stateless_random_crop = tf.image.stateless_random_crop(image, size=[210, 300, 3], seed=seed)
        visualize(image, stateless_random_crop)
        # TensorFlow 2.21's shapes and dtypes; the same seed, the same image
        assert stateless_random_brightness.shape == (240, 320, 3) and stateless_random_brightness.dtype == tf.uint8
        assert stateless_random_contrast.dtype == tf.uint8 and stateless_random_crop.shape == (210, 300, 3)
        again = tf.image.stateless_random_crop(image, size=[210, 300, 3], seed=seed)
        assert np.array_equal(again, stateless_random_crop)
        assert np.array_equal(tf.image.stateless_random_brightness(image, 0.95, seed), stateless_random_brightness)
    with pytest.raises(NotImplementedError, match="no JPEG codec"):
        tf.image.stateless_random_jpeg_quality(image, min_jpeg_quality=50, max_jpeg_quality=90, seed=(0, 0))


def resize_and_rescale(image, label):  # cell 89
    image = tf.cast(image, tf.float32)
    image = tf.image.resize(image, [IMG_SIZE, IMG_SIZE])
    image = image / 255.0
    return image, label


def augment(image_label, seed):  # cell 91
    image, label = image_label
    image, label = resize_and_rescale(image, label)
    image = tf.image.resize_with_crop_or_pad(image, IMG_SIZE + 6, IMG_SIZE + 6)
    # Make a new seed.
    new_seed = tf.random.split(seed, num=1)[0, :]
    # Random crop back to the original size.
    image = tf.image.stateless_random_crop(image, size=[IMG_SIZE, IMG_SIZE, 3], seed=seed)
    # Random brightness.
    image = tf.image.stateless_random_brightness(image, max_delta=0.5, seed=new_seed)
    image = tf.clip_by_value(image, 0, 1)
    return image, label


def test_cells_87_to_104_augment_with_stateless_seeds_from_a_counter_and_a_generator():
    train_datasets, val_ds, test_ds = load_splits()  # cell 87

    counter = tf.data.experimental.Counter()  # cell 93
    train_ds = tf.data.Dataset.zip((train_datasets, (counter, counter)))
    train_ds = train_ds.shuffle(1000).map(augment, num_parallel_calls=AUTOTUNE).batch(batch_size).prefetch(AUTOTUNE)
    val_ds = val_ds.map(resize_and_rescale, num_parallel_calls=AUTOTUNE).batch(batch_size).prefetch(AUTOTUNE)
    test_ds = test_ds.map(resize_and_rescale, num_parallel_calls=AUTOTUNE).batch(batch_size).prefetch(AUTOTUNE)
    x, y = next(iter(train_ds))
    assert x.shape == (32, IMG_SIZE, IMG_SIZE, 3) and x.dtype == tf.float32 and y.shape == (32,)
    assert 0 <= float(tf.reduce_min(x)) and float(tf.reduce_max(x)) <= 1  # clipped
    assert next(iter(val_ds))[0].shape == (4, IMG_SIZE, IMG_SIZE, 3) == next(iter(test_ds))[0].shape

    # The element with count n gets seed (n, n): augmenting it again with that seed gives the same image.
    first, _ = next(iter(tf.data.Dataset.zip((train_datasets, (counter, counter))).map(augment)))
    again, _ = augment(next(iter(train_datasets)), (tf.constant(0, tf.int64), tf.constant(0, tf.int64)))
    assert np.array_equal(first, again)

    rng = tf.random.Generator.from_seed(123, alg="philox")  # cell 99

    def f(x, y):  # cell 100
        seed = rng.make_seeds(1)[:, 0]
        image, label = augment((x, y), seed)
        return image, label

    train_ds = train_datasets.shuffle(1000).map(f, num_parallel_calls=AUTOTUNE).batch(batch_size).prefetch(AUTOTUNE)
    x, y = next(iter(train_ds))  # cell 102
    assert x.shape == (32, IMG_SIZE, IMG_SIZE, 3) and 0 <= float(tf.reduce_min(x)) <= float(tf.reduce_max(x)) <= 1
    in_order = train_datasets.map(f)
    first, second = next(iter(in_order)), next(iter(in_order))  # the same image, from two passes
    assert np.array_equal(first[1], second[1]) and not np.array_equal(first[0], second[0])  # new seeds each pass
