"""mt.Module (tf.Module): names, name scopes, variable and submodule tracking in TensorFlow's order."""

from __future__ import annotations

import pytest

import minitape as tf


class SimpleModule(tf.Module):
    """The first example of TensorFlow's "Introduction to modules" guide."""

    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_variable = tf.Variable(5.0, name="train_me")
        self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

    def __call__(self, x):
        return self.a_variable * x + self.non_trainable_variable


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def test_the_guides_simple_module_tracks_its_variables():
    module = SimpleModule(name="simple")
    assert float(module(tf.constant(5.0))) == 30.0
    assert [v.name for v in module.trainable_variables] == ["train_me:0"]
    assert [v.name for v in module.variables] == ["train_me:0", "do_not_train_me:0"]
    assert [v.name for v in module.non_trainable_variables] == ["do_not_train_me:0"]
    assert isinstance(module.variables, tuple)  # TF returns tuples


def test_names_default_to_the_class_name_in_snake_case_and_must_be_identifiers():
    assert SimpleModule().name == "simple_module"
    assert SequentialModule(name="the_model").name == "the_model"
    assert tf.Module().name == "module"
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="my model")


def test_submodules_and_variables_of_nested_modules_in_tensorflows_order():
    tf.random.set_seed(0)
    model = SequentialModule(name="the_model")
    assert model(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)
    assert model.submodules == (model.dense_1, model.dense_2)
    # TF walks the attributes sorted by name (b before w), each module's own first, then its submodules'
    assert [tuple(v.shape) for v in model.variables] == [(3,), (3, 3), (2,), (3, 2)]
    assert [v.name for v in model.variables] == ["b:0", "w:0", "b:0", "w:0"]


class Holder(tf.Module):
    def __init__(self):
        super().__init__()
        self.z_list = [tf.Variable(1.0, name="list_0"), (tf.Variable(2.0, name="tuple_in_list"),)]
        self.a_dict = {"y": tf.Variable(3.0, name="dict_y"), "x": [tf.Variable(4.0, name="dict_x")]}
        self.child = SimpleModule(name="child")
        self.shared = self.child  # the same module twice: reported once
        self.plain = 3
        self.again = self.a_dict["y"]  # the same variable twice: reported once


def test_tracking_through_nested_lists_tuples_and_dicts_sorted_by_name_and_key():
    holder = Holder()
    names = [v.name for v in holder.variables]
    # attributes sorted: a_dict (keys x, y), again, child (module: later), plain, shared, z_list; then child's own
    assert names == ["dict_x:0", "dict_y:0", "list_0:0", "tuple_in_list:0", "train_me:0", "do_not_train_me:0"]
    assert holder.submodules == (holder.child,)


def test_cycles_between_modules_end():
    a, b = tf.Module(name="a"), tf.Module(name="b")
    a.other, b.other = b, a
    a.v = tf.Variable(1.0, name="va")
    b.v = tf.Variable(2.0, name="vb")
    assert [v.name for v in a.variables] == ["va:0", "vb:0"]
    assert a.submodules == (b,)


def test_name_scope_labels_the_ops_and_can_be_entered_again():
    module = SimpleModule(name="simple")
    assert module.name_scope.name == "simple/"
    with module.name_scope as scope:
        assert scope == "simple/"  # TensorFlow's scope strings end in a slash
    with module.name_scope as scope:
        with tf.name_scope("inner") as inner:
            assert (scope, inner) == ("simple/", "simple/inner/")


def test_with_name_scope_wraps_a_method():
    class Scoped(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            with tf.name_scope("op") as scope:
                return scope

    assert Scoped(name="scoped")(1.0) == "scoped/op/"


def test_keras_layers_and_models_are_modules():
    layer = tf.keras.layers.Dense(2)
    layer(tf.ones((1, 3)))
    assert isinstance(layer, tf.Module)
    assert layer.name_scope.name == layer.name + "/"

    class Wrapper(tf.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

    assert Wrapper().submodules == (layer,)
    assert len(Wrapper().trainable_variables) == 2


def test_a_plain_module_inside_a_keras_model_contributes_its_variables():
    class WithModule(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = SimpleModule()

        def call(self, x):
            return self.inner(x)

    model = WithModule()
    assert [v.name for v in model.trainable_variables] == ["train_me:0"]
    assert [v.name for v in model.non_trainable_variables] == ["do_not_train_me:0"]


def test_variables_take_the_open_name_scopes_as_in_tensorflow():
    with tf.name_scope("foo") as foo:
        with tf.name_scope("bar") as bar:
            unnamed = tf.Variable([0])
            assert tf.get_current_name_scope() == "foo/bar"
            with tf.name_scope(foo) as again:  # a name ending in "/" is taken whole
                named = tf.Variable(1.0, name="w")
            with tf.name_scope("") as top:  # "" goes back to the top
                plain = tf.Variable(1.0, name="p")
    assert (foo, bar, again, top) == ("foo/", "foo/bar/", "foo/", "")
    assert [unnamed.name, named.name, plain.name] == ["foo/bar/Variable:0", "foo/w:0", "p:0"]
    assert repr(unnamed).startswith("<mt.Variable 'foo/bar/Variable:0' shape=(1,)")
    assert tf.get_current_name_scope() == "" and tf.Variable(1.0, name="w").name == "w:0"


def test_a_module_scope_names_its_variables_and_keras_names_stay_keras_names():
    module = SimpleModule(name="mod")
    with module.name_scope:
        assert tf.Variable(1.0, name="a").name == "mod/a:0"

    class Seen(tf.keras.metrics.Metric):
        def __init__(self) -> None:
            super().__init__(name="seen")
            self.count = self.add_weight(name="count", initializer="zeros")

    dense = tf.keras.layers.Dense(2, name="dense")
    with tf.name_scope("outer"):
        dense(tf.ones((1, 3)))
        seen = Seen()
    assert [v.name for v in dense.weights] == ["dense/kernel:0", "dense/bias:0"]
    assert [v.name for v in seen.variables] == ["seen/count:0"]


def test_name_scope_refuses_a_name_that_is_not_a_string():
    with pytest.raises(ValueError, match=r"name_scope needs a string name.*not int"):
        with tf.name_scope(3):
            pass
