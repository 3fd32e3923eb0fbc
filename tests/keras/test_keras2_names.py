"""Keras 2-era names that TensorFlow 2.x teaching code still uses, and Keras misuse TensorFlow refuses.

Every expected value, warning and message below is what TensorFlow 2.21 (Keras 3.15.1, `tf.keras`) printed
for the same snippet, run side by side with `import tensorflow as tf` (2026-11-28).
"""

import warnings

import numpy as np
import pytest

import minitape as tf

keras = tf.keras
K = tf.keras.backend

pytestmark = pytest.mark.usefixtures("keras_session")


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in caught]


# ---- keras.backend: Keras 2's functions, as tf.keras.backend still has them -----------------------------------
def test_backend_functions_give_tensorflows_values():
    x = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    assert K.square(x).numpy().tolist() == [[1.0, 4.0], [9.0, 16.0]]
    np.testing.assert_allclose(K.sqrt(x).numpy(), [[1.0, 0.0], [1.7320507764816284, 2.0]])  # clipped at 0
    assert K.batch_dot(x, x, axes=1).numpy().tolist() == [[5.0], [25.0]]
    a = tf.reshape(tf.range(12, dtype=tf.float32), (2, 2, 3))
    b = tf.reshape(tf.range(12, dtype=tf.float32), (2, 3, 2))
    assert K.batch_dot(a, b).numpy().tolist() == [[[10.0, 13.0], [28.0, 40.0]], [[172.0, 193.0], [244.0, 274.0]]]
    assert K.dot(a, tf.ones((3, 2))).shape == (2, 2, 2)
    np.testing.assert_allclose(K.hard_sigmoid(tf.constant([-3.0, 0.0, 1.0, 3.0])).numpy(), [0.0, 0.5, 0.7, 1.0])
    relu = K.relu(tf.constant([-2.0, 0.5, 1.0, 8.0]), alpha=0.1, max_value=6.0, threshold=0.7)
    np.testing.assert_allclose(relu.numpy(), [-0.27000001072883606, -0.019999999552965164, 1.0, 6.0], rtol=1e-6)
    assert K.clip(tf.constant([1.0, 5.0]), 3.0, 2.0).numpy().tolist() == [3.0, 3.0]
    assert float(K.mean(tf.constant([True, False, True, True]))) == 0.75
    assert float(K.std(x)) == pytest.approx(2.291288) and K.var(x, axis=0).numpy().tolist() == [1.0, 9.0]
    assert K.repeat_elements(tf.constant([[1, 2]]), 2, axis=1).numpy().tolist() == [[1, 1, 2, 2]]
    assert K.switch(tf.constant([True, False]), tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy().tolist() == [
        1.0,
        4.0,
    ]
    assert K.arange(5, dtype="float32").numpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert K.arange(-3).numpy().tolist() == []
    np.testing.assert_allclose(K.elu(tf.constant([-1.0, 2.0]), alpha=0.5).numpy(), [-0.31606027483940125, 2.0])
    assert (K.int_shape(x), K.ndim(x), K.dtype(x)) == ((2, 2), 2, "float32")
    assert K.one_hot(tf.constant([0, 2]), 3).numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    assert K.temporal_padding(tf.ones((1, 2, 1))).numpy()[0, :, 0].tolist() == [0.0, 1.0, 1.0, 0.0]
    cce = K.categorical_crossentropy(tf.constant([[0.0, 1.0]]), tf.constant([[0.3, 0.7]]))
    np.testing.assert_allclose(cce.numpy(), [0.3566749691963196], rtol=1e-6)
    bce = K.binary_crossentropy(tf.constant([[0.0, 1.0]]), tf.constant([[0.3, 0.7]]))
    np.testing.assert_allclose(bce.numpy(), [[0.35667479038238525, 0.35667479038238525]], rtol=1e-6)
    assert K.batch_flatten(a).shape == (2, 6)
    assert isinstance(K.zeros((2,)), tf.Variable) and not isinstance(K.zeros((0,)), tf.Variable)
    assert (K.image_data_format(), K.backend(), K.epsilon(), K.floatx()) == (
        "channels_last",
        "tensorflow",
        1e-07,
        "float32",
    )


def test_backend_random_functions_take_floatx_and_their_shape():
    tf.random.set_seed(0)
    draws = K.random_normal((2000,), mean=1.0, stddev=2.0)
    assert draws.dtype == tf.float32 and draws.shape == (2000,)
    assert abs(float(tf.reduce_mean(draws)) - 1.0) < 0.2 and abs(float(tf.math.reduce_std(draws)) - 2.0) < 0.2
    uniform = K.random_uniform((500,), 2.0, 3.0).numpy()
    assert uniform.min() >= 2.0 and uniform.max() < 3.0
    assert set(np.unique(K.random_bernoulli((100,), p=0.5).numpy())) <= {0.0, 1.0}


def test_backend_folds_are_tensorflows_folds():
    e = tf.constant([1.0, 2.0, 3.0])
    # TF 2.21: 123.0, 321.0, 106.0
    assert K.foldl(lambda a, x: a * 10 + x, e).numpy() == 123.0
    assert K.foldr(lambda a, x: a * 10 + x, e).numpy() == 321.0
    assert K.foldl(lambda a, x: a + x, e, initializer=100.0).numpy() == 106.0


def test_a_left_out_backend_function_names_what_to_use():
    with pytest.raises(AttributeError, match="keras.backend.rnn: use keras.layers.RNN"):
        K.rnn  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        K.no_such_thing  # noqa: B018


# ---- compiled_loss / compiled_metrics in an overridden train_step ---------------------------------------------
class _Keras2Step(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_compiled_loss_and_compiled_metrics_train_as_in_keras_3_with_its_warnings():
    x = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
    inputs = keras.Input((3,))
    model = _Keras2Step(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    model.compile("sgd", loss="mse", metrics=["mae"])
    history, messages = _warnings_of(lambda: model.fit(x, x[:, :1] * 2, epochs=2, batch_size=8, verbose=0))
    # TensorFlow's mae for the same data and weights (one full batch per epoch)
    np.testing.assert_allclose(history.history["mae"], [0.6971006989479065, 0.6870434284210205], rtol=1e-5)
    assert (
        "`model.compiled_loss()` is deprecated. Instead, use `model.compute_loss(x, y, y_pred, sample_weight, "
        "training)`." in messages
    )
    assert (
        "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in self.metrics:\n"
        "    metric.update_state(y, y_pred)\n```\n" in messages
    )


# ---- layers: add_variable, InputLayer(input_shape=), an initializer class ------------------------------------
def test_add_variable_takes_keras_3s_shape_first_and_refuses_keras_2s_name_first():
    class Keras3(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_variable((2,), "ones", name="w")

        def call(self, x):
            return x + self.w

    layer = Keras3()
    assert layer(np.zeros((1, 2))).numpy().tolist() == [[1.0, 1.0]]

    class Keras2(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_variable("w", [2])

        def call(self, x):
            return x + self.w

    # TensorFlow: "Could not interpret initializer identifier: [2]"; here the Keras 3 spelling
    with pytest.raises(TypeError, match=r"takes the shape first.*add_weight\(name='w', shape=\.\.\.\)"):
        Keras2()(np.zeros((1, 2)))


def test_input_layer_reads_keras_2s_input_shape_with_keras_3s_warning():
    layer, messages = _warnings_of(lambda: keras.layers.InputLayer(input_shape=(4,)))
    assert "Argument `input_shape` is deprecated. Use `shape` instead." in messages
    assert layer.output.shape == (None, 4)
    model, _ = _warnings_of(
        lambda: keras.Sequential([keras.layers.InputLayer(input_shape=(4,)), keras.layers.Dense(2)])
    )
    assert model.output_shape == (None, 2) and len(model.layers) == 1  # TensorFlow: ((None, 2), ['dense'])
    assert keras.layers.InputLayer(batch_input_shape=(3, 5)).output.shape == (3, 5)


def test_an_initializer_class_is_made_with_its_defaults_as_keras_3_does():
    dense = keras.layers.Dense(2, kernel_initializer=keras.initializers.Ones)
    assert dense(np.ones((1, 3))).numpy().tolist() == [[3.0, 3.0]]  # TensorFlow: [[3., 3.]]

    class WithClass(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(2,), initializer=keras.initializers.Ones)

        def call(self, x):
            return x + self.w

    assert WithClass()(np.zeros((1, 2))).numpy().tolist() == [[1.0, 1.0]]


# ---- optimizers: lr=, decay=, a string learning rate -----------------------------------------------------------
def test_lr_is_refused_as_keras_3_does_with_its_keras_3_spelling():
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized: \{'lr': 0.1\}.*`lr` is `learning_rate`"):
        keras.optimizers.SGD(lr=0.1)
    with pytest.raises(ValueError, match=r"not recognized: \{'lr': 0.1\}.*Adam\(learning_rate=0.01\)"):
        keras.optimizers.Adam(lr=0.1)


def test_decay_is_ignored_with_keras_3s_warning():
    optimizer, messages = _warnings_of(lambda: keras.optimizers.SGD(learning_rate=0.1, decay=0.01))
    assert messages == ["Argument `decay` is no longer supported and will be ignored."]
    assert float(optimizer.learning_rate) == pytest.approx(0.1)


@pytest.mark.parametrize("value", ["0.1", None, True])
def test_a_learning_rate_that_is_not_a_number_is_keras_3s_error(value):
    with pytest.raises(ValueError, match=r"Argument `learning_rate` should be float, or an instance of Learning"):
        keras.optimizers.SGD(learning_rate=value)


def test_momentum_as_text_is_refused():
    with pytest.raises(ValueError, match=r"`momentum` must be a float between \[0, 1\]"):
        keras.optimizers.SGD(0.1, momentum="0.9")


# ---- layer sizes ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("units", [2.5, 0, -1, "3", np.int64(3)])
def test_dense_units_must_be_a_positive_python_int_as_in_keras_3(units):
    with pytest.raises(ValueError, match=r"Received an invalid value for `units`, expected a positive integer"):
        keras.layers.Dense(units)


def test_embedding_sizes_must_be_positive_ints():
    with pytest.raises(ValueError, match=r"`input_dim` must be a positive integer. Received: input_dim=10.5 \(of"):
        keras.layers.Embedding(10.5, 3)
    with pytest.raises(ValueError, match=r"`output_dim` must be a positive integer. Received: output_dim=2.5"):
        keras.layers.Embedding(10, 2.5)


# ---- a model's inputs -----------------------------------------------------------------------------------------
def _model():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])


def test_a_model_built_for_4_features_refuses_a_rank_3_input():
    # TensorFlow: "... Expected shape (None, 4), but input has incompatible shape (5, 2, 4)"
    with pytest.raises(ValueError, match=r"expected shape=\(None, 4\), found shape=\(5, 2, 4\)"):
        _model()(np.ones((5, 2, 4), "float32"))
    inputs = keras.Input((4,))
    functional = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    # TensorFlow: "Input 0 with name 'input_layer_4' of layer 'functional_3' is incompatible with the layer:
    # expected shape=(None, 4), found shape=(5, 2, 4)"
    with pytest.raises(ValueError, match=r"Input 0 with name 'input_layer.*' of layer 'functional.*' is incompatible"):
        functional(np.ones((5, 2, 4), "float32"))
    assert functional(np.ones((5, 4), "float32")).shape == (5, 2)


def test_lists_given_to_a_one_input_model_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="ragged list .* pad the rows to one length"):
        _model()([[1, 2, 3, 4], [1, 2]])
    # TensorFlow keeps the first of two (2, 4) arrays and silently drops the second; minitape refuses
    with pytest.raises(ValueError, match=r"received a list of 2 values: stack them into one array"):
        _model()([np.ones((2, 4)), np.ones((2, 4))])


def test_predict_on_no_examples_says_so():
    # Keras 3.15 fails with "UnboundLocalError: cannot access local variable 'batch_outputs'"
    with pytest.raises(ValueError, match=r"predict\(\): x gave no batches \(it holds 0 examples\)"):
        _model().predict(np.zeros((0, 4), "float32"), verbose=0)


def test_string_labels_are_refused_with_how_to_make_class_indices():
    model = _model()
    model.compile("sgd", "sparse_categorical_crossentropy")
    # TensorFlow: "ValueError: Invalid dtype: str32"
    with pytest.raises(TypeError, match=r"y holds text, e.g. \['a', 'b', 'a'\].*np.unique\(y, return_inverse=True\)"):
        model.fit(np.ones((4, 4)), np.array(["a", "b", "a", "b"]), verbose=0)


# ---- more Keras names from TensorFlow 2.x tutorials ------------------------------------------------------------
def test_pad_sequences_as_keras():
    ragged = [[1, 2], [3, 4, 5, 6], [7]]
    assert keras.utils.pad_sequences(ragged, maxlen=3).tolist() == [[0, 1, 2], [4, 5, 6], [0, 0, 7]]
    post = keras.utils.pad_sequences(ragged, padding="post", truncating="post", value=-1)
    assert post.tolist() == [[1, 2, -1, -1], [3, 4, 5, 6], [7, -1, -1, -1]] and post.dtype == np.int32
    assert keras.preprocessing.sequence.pad_sequences([[1, 2], [3]]).tolist() == [[1, 2], [0, 3]]
    assert keras.utils.pad_sequences([[1, 2]], maxlen=0).shape == (1, 0)
    with pytest.raises(AttributeError, match="keras.preprocessing.image: prepare images with numpy"):
        keras.preprocessing.image  # noqa: B018


def test_small_keras_helpers_give_tensorflows_values():
    assert keras.utils.normalize(np.array([[3.0, 4.0], [1.0, 0.0]])).tolist() == [[0.6, 0.8], [1.0, 0.0]]
    assert keras.utils.normalize(np.array([[3.0, 4.0], [1.0, 0.0]]), axis=0, order=1).tolist() == [
        [0.75, 1.0],
        [0.25, 0.0],
    ]
    reduction = keras.losses.Reduction
    assert (reduction.NONE, reduction.SUM, reduction.SUM_OVER_BATCH_SIZE, reduction.AUTO) == (
        "none",
        "sum",
        "sum_over_batch_size",
        "auto",
    )
    assert float(keras.losses.MeanSquaredError(reduction=reduction.SUM)([[1.0], [2.0]], [[0.0], [0.0]])) == 5.0
    hard = keras.activations.hard_sigmoid(tf.constant([-4.0, -1.0, 0.0, 1.0, 4.0])).numpy()
    np.testing.assert_allclose(hard, [0.0, 0.3333333432674408, 0.5, 0.6666666865348816, 1.0], rtol=1e-6)
    assert keras.initializers.Identity(gain=2.0)((2, 3)).numpy().tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    assert keras.initializers.get("identity")((2, 2)).numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert keras.initializers.constant(3.0)((2,)).numpy().tolist() == [3.0, 3.0]
    assert type(keras.initializers.random_normal(stddev=0.1)).__name__ == "RandomNormal"
    assert type(keras.initializers.truncated_normal()).__name__ == "TruncatedNormal"
    assert type(keras.initializers.lecun_normal()).__name__ == "LecunNormal"
    total = keras.metrics.Sum()
    total.update_state([1.0, 2.0, 3.0])
    total.update_state(4.0, sample_weight=0.5)
    assert (float(total.result()), total.name) == (8.0, "sum")  # TensorFlow: (8.0, 'sum')


def test_keras_2_names_gone_from_keras_3_say_what_to_use():
    # TensorFlow 2.21: "`keras.optimizers.legacy` is not supported in Keras 3"
    with pytest.raises(AttributeError, match="legacy optimizers are gone in Keras 3 too; use keras.optimizers.Adam"):
        keras.optimizers.legacy.Adam(0.1)
    with pytest.raises(AttributeError, match=r"keras.utils.Sequence: fit takes any iterable of \(x, y\) batches"):
        keras.utils.Sequence  # noqa: B018

    class Logging(keras.layers.Layer):
        def call(self, x):
            self.add_metric(K.std(x), name="std_of_activation", aggregation="mean")
            return x

    with pytest.raises(NotImplementedError, match="Keras 3 has no add_metric"):
        Logging()(np.ones((2, 3)))


@pytest.mark.parametrize(
    "name, spelling",
    [("predict_classes", r"np.argmax\(model.predict\(x\), axis=-1\)"), ("fit_generator", r"model.fit\(generator")],
)
def test_keras_2_model_methods_name_their_keras_3_spelling(name, spelling):
    # TensorFlow 2.21: "'Sequential' object has no attribute 'predict_classes'"
    with pytest.raises(AttributeError, match=rf"'Sequential' object has no attribute '{name}': Keras 3 removed it; "):
        getattr(_model(), name)
    with pytest.raises(AttributeError, match=spelling):
        getattr(_model(), name)
