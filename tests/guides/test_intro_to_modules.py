"""Port of TensorFlow's guide "Introduction to modules, layers, and models" (site/en/guide/intro_to_modules).

The guide's cells run unchanged but for the imports (`import minitape as tf`, and Keras taken from minitape in
place of the separate `keras` package), in order, and the tests check what the guide prints. Cell numbers count
the notebook's code cells from 1 (the licence cell). Shell lines (`!ls`) and IPython magics (`%load_ext`,
`%tensorboard`) are left out: they are not Python. Checkpoints run (`!ls` becomes a look at the files); saving a
SavedModel or a `.keras` file and TensorBoard tracing are not in minitape: their tests check that the error names
what is missing.
"""

import re

import numpy as np
import pytest

import minitape as tf
from minitape import keras  # the guide's `import keras`: minitape's Keras lives inside it

pytestmark = pytest.mark.usefixtures("keras_session")

NAMES_MINITAPE_AND_SAVING = r"(?is)(?=.*minitape)(?=.*sav)"


def _simple_module_class():
    """Cell 3's class (a tf.Module subclass, so defined when a test runs: a missing tf.Module fails one test)."""

    class SimpleModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.a_variable = tf.Variable(5.0, name="train_me")
            self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

        def __call__(self, x):
            return self.a_variable * x + self.non_trainable_variable

    return SimpleModule


def test_cells_03_04_a_simple_module(capsys):
    SimpleModule = _simple_module_class()
    simple_module = SimpleModule(name="simple")

    result = simple_module(tf.constant(5.0))
    assert result.numpy() == 30.0

    # All trainable variables
    print("trainable variables:", simple_module.trainable_variables)
    # Every variable
    print("all variables:", simple_module.variables)

    trainable, every = capsys.readouterr().out.splitlines()
    assert trainable.startswith("trainable variables: (") and trainable.count("Variable") == 1
    assert "'train_me:0'" in trainable and "numpy=5.0" in trainable
    assert every.count("Variable") == 2
    assert every.index("'train_me:0'") < every.index("'do_not_train_me:0'")  # sorted by attribute name
    assert simple_module.name == "simple"


def _dense_classes():
    """Cells 5 and 6's classes."""

    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class SequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)

            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    return Dense, SequentialModule


def test_cells_05_08_modules_inside_modules(capsys):
    Dense, SequentialModule = _dense_classes()
    # You have made a model!
    my_model = SequentialModule(name="the_model")

    # Call it, with random results
    print("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))

    print("Submodules:", my_model.submodules)

    for var in my_model.variables:
        print(var, "\n")

    out = capsys.readouterr().out
    results = out[: out.index("Submodules:")]
    assert results.startswith("Model results: ") and "shape=(1, 2)" in results
    assert len(my_model.submodules) == 2
    assert my_model.submodules[0] is my_model.dense_1 and my_model.submodules[1] is my_model.dense_2
    # the variables come module by module, each module's sorted by attribute name: b before w
    assert [v.shape for v in my_model.variables] == [(3,), (3, 3), (2,), (3, 2)]
    assert re.findall(r"'(\w+:0)'", out) == ["b:0", "w:0", "b:0", "w:0"]


def _flexible_module_classes():
    """Cells 9 and 10's classes."""

    class FlexibleDenseModule(tf.Module):
        # Note: No need for `in_features`
        def __init__(self, out_features, name=None):
            super().__init__(name=name)
            self.is_built = False
            self.out_features = out_features

        def __call__(self, x):
            # Create variables on first call.
            if not self.is_built:
                self.w = tf.Variable(tf.random.normal([x.shape[-1], self.out_features]), name="w")
                self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
                self.is_built = True

            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    # Used in a module
    class MySequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)

            self.dense_1 = FlexibleDenseModule(out_features=3)
            self.dense_2 = FlexibleDenseModule(out_features=2)

        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    return MySequentialModule


def test_cells_09_10_variables_created_on_first_call(capsys):
    MySequentialModule = _flexible_module_classes()
    my_model = MySequentialModule(name="the_model")
    print("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))

    assert "shape=(1, 2)" in capsys.readouterr().out
    assert [v.shape for v in my_model.trainable_variables] == [(3,), (3, 3), (2,), (3, 2)]


def test_cells_11_14_checkpoints(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    MySequentialModule = _flexible_module_classes()
    my_model = MySequentialModule(name="the_model")
    expected = my_model(tf.constant([[2.0, 2.0, 2.0]]))

    chkp_path = "my_checkpoint"
    checkpoint = tf.train.Checkpoint(model=my_model)
    assert checkpoint.write(chkp_path) == "my_checkpoint"

    # cell 12, `!ls my_checkpoint*`: TensorFlow 2.21 lists these two files
    assert sorted(p.name for p in tmp_path.glob("my_checkpoint*")) == [
        "my_checkpoint.data-00000-of-00001",
        "my_checkpoint.index",
    ]

    # cell 13: TensorFlow 2.21 gives these keys and shapes (write() keeps no save_counter)
    assert tf.train.list_variables(chkp_path) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE", [3, 3]),
        ("model/dense_2/b/.ATTRIBUTES/VARIABLE_VALUE", [2]),
        ("model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE", [3, 2]),
    ]

    new_model = MySequentialModule()
    new_checkpoint = tf.train.Checkpoint(model=new_model)
    new_checkpoint.restore("my_checkpoint")

    # Should be the same result as above
    result = new_model(tf.constant([[2.0, 2.0, 2.0]]))
    # the new model makes its variables at this first call: each is restored as it is assigned
    np.testing.assert_array_equal(result.numpy(), expected.numpy())


def _function_module_class():
    """Cell 15's class. The guide redefines MySequentialModule; here it gets its own name."""
    Dense, _ = _dense_classes()

    class MySequentialModuleWithFunction(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)

            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @tf.function
        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    return MySequentialModuleWithFunction


def test_cells_15_16_a_function_decorated_call(capsys):
    # You have made a model with a graph!
    MySequentialModuleWithFunction = _function_module_class()
    my_model = MySequentialModuleWithFunction(name="the_model")

    print(my_model([[2.0, 2.0, 2.0]]))
    print(my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))

    first, second = re.findall(r"shape=\(([\d, ]*)\)", capsys.readouterr().out)
    assert (first, second) == ("1, 2", "1, 2, 2")


def test_cell_17_tensorboard_tracing_is_not_there():
    with pytest.raises(AttributeError, match="minitape has no tf.summary"):
        logdir = "logs/func/stamp"
        writer = tf.summary.create_file_writer(logdir)  # noqa: F841 - the guide's next lines use it


def test_cells_19_23_saved_model_is_not_there():
    MySequentialModuleWithFunction = _function_module_class()
    my_model = MySequentialModuleWithFunction(name="the_model")
    with pytest.raises(AttributeError, match="minitape has no tf.saved_model"):
        tf.saved_model.save(my_model, "the_saved_model")
    with pytest.raises(AttributeError, match="minitape has no tf.saved_model"):
        tf.saved_model.load("the_saved_model")


def test_cell_24_the_original_model_still_runs(capsys):
    MySequentialModuleWithFunction = _function_module_class()
    my_model = MySequentialModuleWithFunction(name="the_model")
    print(my_model([[2.0, 2.0, 2.0]]))
    print(my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))
    lines = capsys.readouterr().out
    assert re.findall(r"shape=\(([\d, ]*)\)", lines) == ["1, 2", "1, 2, 2"]


class MyDense(tf.keras.layers.Layer):
    # Adding **kwargs to support base Keras layer arguments
    def __init__(self, in_features, out_features, **kwargs):
        super().__init__(**kwargs)

        # This will soon move to the build step; see below
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def call(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


def test_cells_25_26_a_keras_layer_with_variables_made_in_init():
    simple_layer = MyDense(name="simple", in_features=3, out_features=3)

    result = simple_layer([[2.0, 2.0, 2.0]])
    assert result.shape == (1, 3) and (result.numpy() >= 0).all()
    assert simple_layer.name == "simple"
    assert len(simple_layer.trainable_variables) == 2


class FlexibleDense(tf.keras.layers.Layer):
    # Note the added `**kwargs`, as Keras supports many arguments
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):  # Create the state of the layer (weights)
        self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

    def call(self, inputs):  # Defines the computation from inputs to outputs
        return tf.matmul(inputs, self.w) + self.b


def test_cells_27_31_build_on_first_call(capsys):
    # Create the instance of the layer
    flexible_dense = FlexibleDense(out_features=3)

    assert flexible_dense.variables == []

    # Call it, with predictably random results
    print("Model results:", flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])))

    assert [v.shape for v in flexible_dense.variables] == [(3, 3), (3,)]

    try:
        print("Model results:", flexible_dense(tf.constant([[2.0, 2.0, 2.0, 2.0]])))
    except tf.errors.InvalidArgumentError as e:
        print("Failed:", e)

    results, failed = capsys.readouterr().out.split("Failed: ")
    assert results.startswith("Model results: ") and "shape=(2, 3)" in results
    # TensorFlow: "Matrix size-incompatible: In[0]: [1,4], In[1]: [3,3]"; the message names both shapes
    assert re.search(r"\[?1, ?4\]?", failed) and re.search(r"\[?3, ?3\]?", failed)


def _my_sequential_model_class():
    """Cell 32's class; the decorator runs when the class is defined, so the test defines it."""

    @keras.saving.register_keras_serializable()
    class MySequentialModel(tf.keras.Model):
        def __init__(self, name=None, **kwargs):
            super().__init__(**kwargs)

            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)

        def call(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    return MySequentialModel


def test_cells_32_34_a_keras_model(capsys):
    MySequentialModel = _my_sequential_model_class()

    # You have made a Keras model!
    my_sequential_model = MySequentialModel(name="the_model")

    # Call it on a tensor, with random results
    print("Model results:", my_sequential_model(tf.constant([[2.0, 2.0, 2.0]])))

    assert "shape=(1, 2)" in capsys.readouterr().out
    assert [v.shape for v in my_sequential_model.variables] == [(3, 3), (3,), (3, 2), (2,)]
    submodules = my_sequential_model.submodules
    assert [type(m).__name__ for m in submodules] == ["FlexibleDense", "FlexibleDense"]


def test_cells_35_36_the_functional_api(capsys):
    inputs = tf.keras.Input(
        shape=[
            3,
        ]
    )

    x = FlexibleDense(3)(inputs)
    x = FlexibleDense(2)(x)

    my_functional_model = tf.keras.Model(inputs=inputs, outputs=x)

    my_functional_model.summary()

    result = my_functional_model(tf.constant([[2.0, 2.0, 2.0]]))
    assert result.shape == (1, 2)
    summary = capsys.readouterr().out
    assert "flexible_dense" in summary
    assert re.search(r"Total params: 20\b", summary)  # 3·3 + 3 and 3·2 + 2


class UnregisteredSequentialModel(tf.keras.Model):
    """Cell 32's model without its registration decorator, so that the saving test checks saving alone."""

    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = FlexibleDense(out_features=3)
        self.dense_2 = FlexibleDense(out_features=2)

    def call(self, x):
        return self.dense_2(self.dense_1(x))


def test_cells_37_39_keras_files_are_not_there():
    my_sequential_model = UnregisteredSequentialModel(name="the_model")
    my_sequential_model(tf.constant([[2.0, 2.0, 2.0]]))

    with pytest.raises((AttributeError, NotImplementedError), match=NAMES_MINITAPE_AND_SAVING):
        my_sequential_model.save("exname_of_file.keras")
    with pytest.raises((AttributeError, NotImplementedError), match=NAMES_MINITAPE_AND_SAVING):
        tf.keras.models.load_model("exname_of_file.keras")


def test_flexible_dense_matches_a_hand_computation():
    """Not a guide cell: the layer's output is x @ w + b with the variables it built."""
    layer = FlexibleDense(out_features=3)
    x = np.array([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]], dtype=np.float32)
    out = layer(tf.constant(x)).numpy()
    w, b = (v.numpy() for v in layer.variables)
    np.testing.assert_allclose(out, x @ w + b, rtol=1e-6)
