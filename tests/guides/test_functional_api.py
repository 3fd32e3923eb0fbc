# ruff: noqa: UP008 - the guide's super(Class, self) is kept as written
"""Port of keras-io's guide "The Functional API" (guides/functional_api.py, last modified 2020/04/12).

Its code runs with `import minitape as tf`, `from minitape import keras` and `from minitape.keras import layers`.
What differs, and why:
- no download: MNIST becomes the 8x8 digits bundled with minitape drawn at MNIST's size (`DIGITS_AS_MNIST`,
  1437 training and 360 test images of 28x28 uint8), so the guide's `reshape(60000, 784)` and
  `reshape(10000, 784)` read 1437 and 360; CIFAR-10 becomes the same digits drawn at 32x32 (each pixel a 4x4
  block) in three equal colour channels (`DIGITS_AS_CIFAR10`, labels of shape (n, 1) as CIFAR's);
- each training cell runs as written, and again from the weights a TensorFlow 2.21 (Keras 3.15.1) run started
  from (the `same_start` fixture of tests/conftest.py) with `shuffle=False`, where the test asserts TensorFlow's
  losses and accuracies; the toy ResNet has a Dropout layer, whose random masks no two libraries share: its
  same-start check is the evaluation before training;
- the multi-input model's dummy data (1280 random tickets) trains as written; its same-start run takes 128
  tickets from a seeded generator;
- what minitape does not have fails with its message, tested: `keras.utils.plot_model` (TensorFlow without pydot
  raises ImportError "You must install pydot"), `model.save` / `keras.models.load_model` (TensorFlow 2.21 refuses
  the guide's path without a `.keras` extension), `keras.applications.VGG19` (pretrained weights, a download);
  the feature-extraction cells after VGG19 run on the toy ResNet instead.
Left as it is: `summary()` prints minitape's table (Keras 2's layout; the parameter counts are Keras 3's), fit's
progress bar is Keras 2's, and Keras 3 runs a layer's `call` twice at its first call when the layer has no
`build` (once on symbolic tensors to build it): the first CustomRNN cell prints "(1, 10, 32)" twice there, once
in minitape.
"""

import re

import numpy as np
import pytest

import minitape as tf
from minitape import keras
from minitape.keras import layers

pytestmark = pytest.mark.usefixtures("keras_session")


def _grey(x):
    return np.round(x.astype(np.float64) * 255 / 16).astype(np.uint8)


class DIGITS_AS_MNIST:  # noqa: N801 (it stands where the guide has the module keras.datasets.mnist)
    """`load_data()` as MNIST's: uint8 images 0..255 of shape (n, 28, 28), uint8 labels 0..9."""

    @staticmethod
    def load_data():
        (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()

        def pixels(x):
            return np.pad(np.kron(_grey(x), np.ones((3, 3), np.uint8)), ((0, 0), (2, 2), (2, 2)))

        return (pixels(x_train), y_train), (pixels(x_test), y_test)


class DIGITS_AS_CIFAR10:  # noqa: N801 (it stands where the guide has keras.datasets.cifar10)
    """`load_data()` as CIFAR-10's: uint8 images (n, 32, 32, 3), uint8 labels of shape (n, 1)."""

    @staticmethod
    def load_data():
        (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()

        def pixels(x):
            return np.repeat(np.kron(_grey(x), np.ones((4, 4), np.uint8))[..., None], 3, axis=-1)

        return (pixels(x_train), y_train[:, None]), (pixels(x_test), y_test[:, None])


PLOT_MODEL = (
    "minitape has no keras.utils.plot_model: there is no model plot; print model.summary(), or draw a recorded "
    "tape with minitape.widgets.TapeView."
)


def _mnist_model():
    inputs = keras.Input(shape=(784,))
    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    return model


def test_introduction(capsys):
    inputs = keras.Input(shape=(784,))
    # Just for demonstration purposes.
    img_inputs = keras.Input(shape=(32, 32, 3))
    # TensorFlow 2.21 shows (None, 784) and 'float32' (a str)
    assert inputs.shape == (None, 784) and img_inputs.shape == (None, 32, 32, 3)
    assert inputs.dtype == "float32" and type(inputs.dtype) is str

    model = _mnist_model()
    model.summary()
    summary = capsys.readouterr().out
    assert "Total params: 55,050" in summary and "Trainable params: 55,050" in summary  # TensorFlow's counts

    with pytest.raises(AttributeError) as caught:
        keras.utils.plot_model(model, "my_first_model.png")
    assert str(caught.value) == PLOT_MODEL
    with pytest.raises(AttributeError, match="no model plot"):
        keras.utils.plot_model(model, "my_first_model_with_shape_info.png", show_shapes=True)


def _training_cell(model, shuffle=True):
    """The guide's training cell; `shuffle=False` is added for the run from TensorFlow's start."""
    (x_train, y_train), (x_test, y_test) = DIGITS_AS_MNIST.load_data()

    x_train = x_train.reshape(1437, 784).astype("float32") / 255
    x_test = x_test.reshape(360, 784).astype("float32") / 255

    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=keras.optimizers.RMSprop(),
        metrics=["accuracy"],
    )

    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2, shuffle=shuffle)

    test_scores = model.evaluate(x_test, y_test, verbose=2)
    print("Test loss:", test_scores[0])
    print("Test accuracy:", test_scores[1])
    return history


def test_training_evaluation_and_inference(capsys, same_start):
    history = _training_cell(_mnist_model())
    out = capsys.readouterr().out
    assert re.search(r"^Epoch 1/2\n.*\nEpoch 2/2\n", out, re.M) and "val_loss" in out
    assert re.search(r"^12/12 - \d+s - \d+(us|ms|s)/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\n", out, re.M)
    assert sorted(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    # TensorFlow 2.21 from the same start (below): accuracy 0.59 then 0.87; shuffled, much the same
    assert history.history["accuracy"][-1] > 0.75 and history.history["val_accuracy"][-1] > 0.75
    accuracy = float(re.search(r"^Test accuracy: (\S+)$", out, re.M)[1])
    assert accuracy > 0.75

    model = _mnist_model()
    same_start(model, 1)
    history = _training_cell(model, shuffle=False)
    out = capsys.readouterr().out
    # what TensorFlow 2.21 gives for the same weights, unshuffled
    expected = {
        "accuracy": [0.5883376598358154, 0.8685813546180725],
        "loss": [1.5983108282089233, 0.7188941240310669],
        "val_accuracy": [0.8090277910232544, 0.8784722089767456],
        "val_loss": [1.0244834423065186, 0.5692826509475708],
    }
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, rtol=2e-6)
    # TensorFlow 2.21 prints these two lines as they are here
    assert out.endswith("Test loss: 0.5157590508460999\nTest accuracy: 0.8916666507720947\n")
    assert re.search(r"^12/12 - \d+s - \d+(us|ms|s)/step - accuracy: 0.8917 - loss: 0.5158$", out, re.M)


def test_save_and_serialize():
    model = _mnist_model()
    # TensorFlow 2.21: ValueError "Invalid filepath extension for saving. Please add either a `.keras` extension
    # ..." for this path; minitape writes no model files and says what it does instead
    with pytest.raises(NotImplementedError, match=r"^minitape has no keras.Model.save\(\): minitape saves weights"):
        model.save("path_to_my_model")
    del model
    with pytest.raises(AttributeError, match=r"model.load_weights\('model.weights.h5'\)` restores it"):
        # Recreate the exact same model purely from the file:
        model = keras.models.load_model("path_to_my_model")  # noqa: F841


def _encoder(name):
    encoder_input = keras.Input(shape=(28, 28, 1), name=name)
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)

    encoder = keras.Model(encoder_input, encoder_output, name="encoder")
    encoder.summary()
    return encoder_input, encoder_output, encoder


def _decoder_layers(x):
    x = layers.Reshape((4, 4, 1))(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
    return decoder_output


def test_use_the_same_graph_of_layers_to_define_multiple_models(capsys):
    encoder_input, encoder_output, encoder = _encoder("img")
    decoder_output = _decoder_layers(encoder_output)

    autoencoder = keras.Model(encoder_input, decoder_output, name="autoencoder")
    autoencoder.summary()
    out = capsys.readouterr().out
    # TensorFlow 2.21: 18,672 and 28,241 parameters; the decoder gives back the input's shape
    assert "Total params: 18,672" in out and "Total params: 28,241" in out
    assert autoencoder.output_shape == (None, 28, 28, 1)
    assert [layer.output.shape for layer in autoencoder.layers[7:]] == [
        (None, 4, 4, 1),
        (None, 6, 6, 16),
        (None, 8, 8, 32),
        (None, 24, 24, 32),
        (None, 26, 26, 16),
        (None, 28, 28, 1),
    ]
    images = np.random.default_rng(0).random((2, 28, 28, 1)).astype("float32")
    np.testing.assert_array_equal(autoencoder.layers[6].output.shape, (None, 16))
    np.testing.assert_allclose(encoder(images), keras.Model(encoder_input, encoder_output)(images))


def test_all_models_are_callable_just_like_layers(capsys):
    _, _, encoder = _encoder("original_img")

    decoder_input = keras.Input(shape=(16,), name="encoded_img")
    decoder_output = _decoder_layers(decoder_input)

    decoder = keras.Model(decoder_input, decoder_output, name="decoder")
    decoder.summary()

    autoencoder_input = keras.Input(shape=(28, 28, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    autoencoder = keras.Model(autoencoder_input, decoded_img, name="autoencoder")
    autoencoder.summary()
    out = capsys.readouterr().out
    # TensorFlow 2.21: the decoder has 9,569 parameters, the autoencoder 28,241 (the two models' weights)
    assert "Total params: 9,569" in out and out.count("Total params: 28,241") == 1
    assert [layer.name for layer in autoencoder.layers] == ["img", "encoder", "decoder"]
    images = np.random.default_rng(1).random((2, 28, 28, 1)).astype("float32")
    np.testing.assert_allclose(autoencoder(images), decoder(encoder(images)), rtol=1e-6)

    def get_model():
        inputs = keras.Input(shape=(128,))
        outputs = layers.Dense(1)(inputs)
        return keras.Model(inputs, outputs)

    model1 = get_model()
    model2 = get_model()
    model3 = get_model()

    inputs = keras.Input(shape=(128,))
    y1 = model1(inputs)
    y2 = model2(inputs)
    y3 = model3(inputs)
    outputs = layers.average([y1, y2, y3])
    ensemble_model = keras.Model(inputs=inputs, outputs=outputs)
    # TensorFlow 2.21: output (None, 1), 387 parameters
    assert ensemble_model.output_shape == (None, 1) and ensemble_model.count_params() == 387
    x = np.random.default_rng(2).random((4, 128)).astype("float32")
    np.testing.assert_allclose(ensemble_model(x), (model1(x) + model2(x) + model3(x)) / 3, rtol=1e-5)


num_tags = 12  # Number of unique issue tags
num_words = 10000  # Size of vocabulary obtained when preprocessing text data
num_departments = 4  # Number of departments for predictions


def _ticket_model():
    title_input = keras.Input(shape=(None,), name="title")  # Variable-length sequence of ints
    body_input = keras.Input(shape=(None,), name="body")  # Variable-length sequence of ints
    tags_input = keras.Input(shape=(num_tags,), name="tags")  # Binary vectors of size `num_tags`

    # Embed each word in the title into a 64-dimensional vector
    title_features = layers.Embedding(num_words, 64)(title_input)
    # Embed each word in the text into a 64-dimensional vector
    body_features = layers.Embedding(num_words, 64)(body_input)

    # Reduce sequence of embedded words in the title into a single 128-dimensional vector
    title_features = layers.LSTM(128)(title_features)
    # Reduce sequence of embedded words in the body into a single 32-dimensional vector
    body_features = layers.LSTM(32)(body_features)

    # Merge all available features into a single large vector via concatenation
    x = layers.concatenate([title_features, body_features, tags_input])

    # Stick a logistic regression for priority prediction on top of the features
    priority_pred = layers.Dense(1, name="priority")(x)
    # Stick a department classifier on top of the features
    department_pred = layers.Dense(num_departments, name="department")(x)

    # Instantiate an end-to-end model predicting both priority and department
    model = keras.Model(
        inputs=[title_input, body_input, tags_input],
        outputs=[priority_pred, department_pred],
    )
    return model


def _compile_by_name(model):
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "priority": keras.losses.BinaryCrossentropy(from_logits=True),
            "department": keras.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )


def test_models_with_multiple_inputs_and_outputs(same_start):
    model = _ticket_model()
    # TensorFlow 2.21: 1,392,097 parameters, outputs (None, 1) and (None, 4)
    assert model.count_params() == 1_392_097 and model.output_shape == [(None, 1), (None, 4)]
    with pytest.raises(AttributeError, match="no model plot"):
        keras.utils.plot_model(model, "multi_input_and_output_model.png", show_shapes=True)

    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[
            keras.losses.BinaryCrossentropy(from_logits=True),
            keras.losses.CategoricalCrossentropy(from_logits=True),
        ],
        loss_weights=[1.0, 0.2],
    )
    _compile_by_name(model)

    # Dummy input data
    title_data = np.random.randint(num_words, size=(1280, 10))
    body_data = np.random.randint(num_words, size=(1280, 100))
    tags_data = np.random.randint(2, size=(1280, num_tags)).astype("float32")

    # Dummy target data
    priority_targets = np.random.random(size=(1280, 1))
    dept_targets = np.random.randint(2, size=(1280, num_departments))

    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
    )
    assert sorted(history.history) == ["department_loss", "loss", "priority_loss"]  # TensorFlow's keys
    assert np.isfinite(history.history["loss"]).all()

    model = _ticket_model()
    same_start(model, 2)
    _compile_by_name(model)
    rng = np.random.RandomState(0)
    title_data = rng.randint(num_words, size=(128, 10))
    body_data = rng.randint(num_words, size=(128, 100))
    tags_data = rng.randint(2, size=(128, num_tags)).astype("float32")
    priority_targets = rng.random_sample(size=(128, 1))
    dept_targets = rng.randint(2, size=(128, num_departments))
    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
        shuffle=False,
        verbose=0,
    )
    # what TensorFlow 2.21 gives for the same weights and tickets
    expected = {
        "department_loss": [2.789907932281494, 2.7875680923461914],
        "loss": [1.2585961818695068, 1.2568964958190918],
        "priority_loss": [0.7006145715713501, 0.6993827819824219],
    }
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, rtol=2e-6)


def _toy_resnet():
    inputs = keras.Input(shape=(32, 32, 3), name="img")
    x = layers.Conv2D(32, 3, activation="relu")(inputs)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(3)(x)

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_2_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_3_output = layers.add([x, block_2_output])

    x = layers.Conv2D(64, 3, activation="relu")(block_3_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(256, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(10)(x)

    model = keras.Model(inputs, outputs, name="toy_resnet")
    model.summary()
    return model


def test_a_toy_resnet_model(capsys, same_start):
    model = _toy_resnet()
    assert "Total params: 223,242" in capsys.readouterr().out  # TensorFlow's count
    with pytest.raises(AttributeError, match="no model plot"):
        keras.utils.plot_model(model, "mini_resnet.png", show_shapes=True)
    same_start(model, 3)

    (x_train, y_train), (x_test, y_test) = DIGITS_AS_CIFAR10.load_data()

    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    y_train = keras.utils.to_categorical(y_train, 10)
    y_test = keras.utils.to_categorical(y_test, 10)

    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=keras.losses.CategoricalCrossentropy(from_logits=True),
        metrics=["acc"],
    )
    # TensorFlow 2.21 from the same weights, before training (no dropout at inference): these two numbers
    np.testing.assert_allclose(model.evaluate(x_train[:1000], y_train[:1000], verbose=0), [2.3017489910125732, 0.1])
    # We restrict the data to the first 1000 samples so as to limit execution time
    # on Colab. Try to train on the entire dataset until convergence!
    history = model.fit(x_train[:1000], y_train[:1000], batch_size=64, epochs=1, validation_split=0.2)
    # TensorFlow 2.21's three runs from that start: loss 2.306 to 2.312, val_loss 2.296 to 2.300, accuracy near 0.1
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert 2.25 < history.history["loss"][0] < 2.35 and 2.25 < history.history["val_loss"][0] < 2.35
    assert y_test.shape == (360, 10) and x_test.shape == (360, 32, 32, 3)


def test_shared_layers_and_extracting_nodes():
    # Embedding for 1000 unique words mapped to 128-dimensional vectors
    shared_embedding = layers.Embedding(1000, 128)

    # Variable-length sequence of integers
    text_input_a = keras.Input(shape=(None,), dtype="int32")

    # Variable-length sequence of integers
    text_input_b = keras.Input(shape=(None,), dtype="int32")

    # Reuse the same layer to encode both inputs
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)
    assert encoded_input_a.shape == encoded_input_b.shape == (None, None, 128)  # TensorFlow's
    assert len(shared_embedding.weights) == 1

    with pytest.raises(AttributeError) as caught:
        vgg19 = tf.keras.applications.VGG19()
    assert str(caught.value) == (
        "minitape has no keras.applications: there are no pretrained models; build the network from keras.layers."
    )
    vgg19 = _toy_resnet()  # the guide's next cells, on the model above in place of VGG19
    features_list = [layer.output for layer in vgg19.layers]
    feat_extraction_model = keras.Model(inputs=vgg19.input, outputs=features_list)

    img = np.random.random((1, 32, 32, 3)).astype("float32")
    extracted_features = feat_extraction_model(img)
    assert len(extracted_features) == 15
    assert [tuple(f.shape) for f in extracted_features[:4]] == [(1, 32, 32, 3), (1, 30, 30, 32), (1, 28, 28, 64),
                                                                (1, 9, 9, 64)]  # fmt: skip
    np.testing.assert_allclose(extracted_features[-1], vgg19(img), rtol=1e-5)


class CustomDense(layers.Layer):
    def __init__(self, units=32):
        super(CustomDense, self).__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {"units": self.units}


def test_extend_the_api_using_custom_layers():
    inputs = keras.Input((4,))
    outputs = CustomDense(10)(inputs)

    model = keras.Model(inputs, outputs)
    config = model.get_config()

    new_model = keras.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    assert new_model.count_params() == 50 and new_model.output_shape == (None, 10)  # TensorFlow's
    assert new_model.layers[1].units == 10 and new_model.layers[1] is not model.layers[1]


def test_mix_and_match_api_styles(capsys):
    units = 32
    timesteps = 10
    input_dim = 5

    # Define a Functional model
    inputs = keras.Input((None, units))
    x = layers.GlobalAveragePooling1D()(inputs)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)

    class CustomRNN(layers.Layer):
        def __init__(self):
            super(CustomRNN, self).__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            # Our previously-defined Functional model
            self.classifier = model

        def call(self, inputs):
            outputs = []
            state = tf.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = tf.stack(outputs, axis=1)
            print(features.shape)
            return self.classifier(features)

    rnn_model = CustomRNN()
    _ = rnn_model(tf.zeros((1, timesteps, input_dim)))
    # TensorFlow 2.21 prints "(1, 10, 32)" twice (module docstring), minitape once
    assert capsys.readouterr().out == "(1, 10, 32)\n" and _.shape == (1, 1)

    batch_size = 16

    class CustomRNN(layers.Layer):
        def __init__(self):
            super(CustomRNN, self).__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = layers.Dense(1)

        def call(self, inputs):
            outputs = []
            state = tf.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = tf.stack(outputs, axis=1)
            return self.classifier(features)

    # Note that you specify a static batch size for the inputs with the `batch_shape`
    # arg, because the inner computation of `CustomRNN` requires a static batch size
    # (when you create the `state` zeros tensor).
    inputs = keras.Input(batch_shape=(batch_size, timesteps, input_dim))
    x = layers.Conv1D(32, 3)(inputs)
    outputs = CustomRNN()(x)

    model = keras.Model(inputs, outputs)

    rnn_model = CustomRNN()
    _ = rnn_model(tf.zeros((1, 10, 5)))
    # TensorFlow 2.21: the model's output is (16, 8, 1), the layer's on zeros (1, 10, 1)
    assert model.output_shape == (16, 8, 1) and _.shape == (1, 10, 1)
