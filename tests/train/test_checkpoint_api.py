"""mt.train's checkpoints: names, files, matching, deferred restoration and errors, against TensorFlow 2.21.

The expected keys, file names and messages are those TensorFlow 2.21 gives for the same code (noted at each test).
"""

import os

import numpy as np
import pytest

import minitape as mt

pytestmark = pytest.mark.usefixtures("keras_session")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


class M(mt.Module):
    def __init__(self):
        super().__init__()
        self.w = mt.Variable(1.0)
        self.layers = [mt.Variable(2.0), {"a": mt.Variable(3.0)}]
        self._hid = mt.Variable(4.0)


def test_module_keys_private_attributes_lists_and_dicts():
    path = mt.train.Checkpoint(m=M()).save("./z/m")
    assert path == "./z/m-1"
    # TensorFlow 2.21 lists these keys for the same module
    assert mt.train.list_variables(path) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("m/_hid/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("m/layers/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("m/layers/1/a/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("m/w/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
    ]
    # and writes this state file (without timestamps: Checkpoint.save keeps none)
    assert open("./z/checkpoint").read() == 'model_checkpoint_path: "m-1"\nall_model_checkpoint_paths: "m-1"\n'
    assert mt.train.latest_checkpoint("./z") == "./z/m-1"
    assert mt.train.load_variable("./z", "m/layers/1/a/.ATTRIBUTES/VARIABLE_VALUE") == np.float32(3.0)


def test_restore_round_trip_and_status():
    m = M()
    path = mt.train.Checkpoint(m=m).save("./c")
    other = M()
    for v in other.variables:
        v.assign(0.0)
    status = mt.train.Checkpoint(m=other).restore(path)
    assert status.assert_consumed() is status
    assert [v.numpy() for v in other.variables] == [v.numpy() for v in m.variables]
    assert status.assert_existing_objects_matched() is status and status.expect_partial() is status
    assert status.assert_nontrivial_match() is status and status.run_restore_ops() is None


def test_save_counter_and_write():
    ckpt = mt.train.Checkpoint(v=mt.Variable([1.0, 2.0]))
    assert repr(ckpt.save_counter) == "<mt.Variable 'save_counter:0' shape=() dtype=int64, numpy=0>"
    assert ckpt.save("./a/c") == "./a/c-1" and ckpt.save("./a/c") == "./a/c-2"
    assert int(ckpt.save_counter) == 2
    assert ckpt.write("./w/x") == "./w/x"  # TensorFlow 2.21: no number, no state file
    assert sorted(os.listdir("./w")) == ["x.data-00000-of-00001", "x.index"]
    assert int(ckpt.save_counter) == 2


def test_errors_in_tensorflows_words():
    ckpt = mt.train.Checkpoint(v=mt.Variable([1.0, 2.0, 3.0]))
    path = ckpt.save("./a/c")
    # TensorFlow 2.21: NotFoundError, with these words
    with pytest.raises(mt.errors.NotFoundError) as info:
        mt.train.Checkpoint(v=mt.Variable([0.0, 0.0, 0.0])).restore("./nope/c-1")
    assert str(info.value) == (
        "Error when restoring from checkpoint or SavedModel at ./nope/c-1: Unsuccessful TensorSliceReader "
        "constructor: Failed to find any matching files for ./nope/c-1\nPlease double-check that the path is "
        "correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1')."
    )
    with pytest.raises(mt.errors.NotFoundError, match="^Unsuccessful TensorSliceReader constructor: Failed to find"):
        mt.train.Checkpoint(v=mt.Variable([0.0])).read("./nope/c-1")
    with pytest.raises(ValueError) as info:
        mt.train.Checkpoint(v=mt.Variable([0.0, 0.0], name="v")).restore(path)
    assert str(info.value) == (
        "Received incompatible tensor with shape (3,) when attempting to restore variable with shape (2,) and name v:0."
    )
    with pytest.raises(mt.errors.InvalidArgumentError, match="expected dtype int32 does not equal original dtype"):
        mt.train.Checkpoint(v=mt.Variable([0, 0, 0])).restore(path)
    with pytest.raises(ValueError, match="^`Checkpoint` was expecting x to be a trackable object"):
        mt.train.Checkpoint(x=1)
    with pytest.raises(mt.errors.DataLossError, match="is a directory"):
        mt.train.Checkpoint(v=mt.Variable([0.0, 0.0, 0.0])).restore("./a")
    reader = mt.train.load_checkpoint("./a")  # a directory: its latest checkpoint
    with pytest.raises(mt.errors.NotFoundError, match="^Key zz not found in checkpoint$"):
        reader.get_tensor("zz")
    with pytest.raises(mt.errors.NotFoundError, match="Failed to find any matching files for ./nope"):
        mt.train.list_variables("./nope")
    assert mt.train.latest_checkpoint("./nope") is None


def test_assertions_name_what_did_not_match():
    path = mt.train.Checkpoint(v=mt.Variable(1.0), w=mt.Variable(2.0)).save("./b/c")
    status = mt.train.Checkpoint(v=mt.Variable(0.0)).restore(path)
    # TensorFlow 2.21: "Unresolved object in checkpoint (root).w: attributes {...}"
    with pytest.raises(AssertionError, match=r"^Unresolved object in checkpoint \(root\)\.w: attributes"):
        status.assert_consumed()
    status.assert_existing_objects_matched()

    status = mt.train.Checkpoint(v=mt.Variable(0.0), extra=mt.Variable(5.0, name="extra")).restore(path)
    with pytest.raises(AssertionError) as info:
        status.assert_existing_objects_matched()
    assert str(info.value).startswith(
        "Found 1 Python objects that were not bound to checkpointed values, likely due to changes in the Python "
        "program. Showing 1 of 1 unmatched objects: [<mt.Variable 'extra:0'"
    )

    written = mt.train.Checkpoint(v=mt.Variable(1.0)).write("./b/written")  # no save_counter in it
    status = mt.train.Checkpoint(other=mt.Variable(0.0)).restore(written)
    with pytest.raises(AssertionError, match="^Nothing except the root object matched a checkpointed value"):
        status.assert_nontrivial_match()

    nothing = mt.train.Checkpoint(v=mt.Variable(0.0)).restore(None)
    assert type(nothing).__name__ == "InitializationOnlyStatus"
    for check in (nothing.assert_consumed, nothing.assert_existing_objects_matched, nothing.assert_nontrivial_match):
        with pytest.raises(AssertionError, match=r"^No checkpoint specified \(save_path=None\); nothing is being"):
            check()


def test_a_tensorflow_checkpoint_is_refused_clearly():
    with open("tf_ckpt.index", "wb") as f:  # TensorFlow's TensorBundle index is a binary table
        f.write(b"\x00\x01\x8a\xff binary table\x00")
    with open("tf_ckpt.data-00000-of-00001", "wb") as f:
        f.write(b"\x00" * 16)
    with pytest.raises(mt.errors.DataLossError, match="cannot be read by minitape"):
        mt.train.Checkpoint(v=mt.Variable(0.0)).restore("tf_ckpt")
    with pytest.raises(mt.errors.DataLossError, match="not a checkpoint minitape wrote"):
        mt.train.list_variables("tf_ckpt")


def test_deferred_restoration_into_a_keras_layer_before_it_is_built():
    layer = mt.keras.layers.Dense(3)
    layer(mt.ones([2, 4]))
    path = mt.train.Checkpoint(layer=layer).save("./d")
    fresh = mt.keras.layers.Dense(3)
    status = mt.train.Checkpoint(layer=fresh).restore(path)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.layer\.kernel"):
        status.assert_consumed()  # the kernel waits for the layer's build
    x = mt.constant(np.arange(8.0, dtype="float32").reshape(2, 4))
    np.testing.assert_array_equal(fresh(x).numpy(), layer(x).numpy())  # restored as the build made it
    status.assert_consumed()


def test_optimizer_slots_restored_before_and_after_the_optimizer_is_built():
    def step(var, opt):
        with mt.GradientTape() as tape:
            loss = mt.reduce_sum(var**3)
        opt.apply_gradients([(tape.gradient(loss, var), var)])

    var, opt = mt.Variable([1.0, -2.0]), mt.keras.optimizers.SGD(0.1, momentum=0.9)
    step(var, opt)
    path = mt.train.Checkpoint(var=var, opt=opt).save("./o")
    assert [k for k, _ in mt.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "opt/_iterations/.ATTRIBUTES/VARIABLE_VALUE",
        "opt/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE",
        "opt/_variables/2/.ATTRIBUTES/VARIABLE_VALUE",  # TensorFlow 2.21 (Keras 3): the momentum of `var`
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "var/.ATTRIBUTES/VARIABLE_VALUE",
    ]
    step(var, opt)
    expected = var.numpy()

    for build_first in (False, True):
        var2, opt2 = mt.Variable([0.0, 0.0]), mt.keras.optimizers.SGD(0.1, momentum=0.9)
        if build_first:  # slots made (zero momentum), then overwritten in place
            opt2.build([var2])
            step(var2, opt2)
        mt.train.Checkpoint(var=var2, opt=opt2).restore(path).assert_existing_objects_matched()
        assert int(opt2.iterations) == 1
        step(var2, opt2)
        np.testing.assert_array_equal(var2.numpy(), expected)


def test_dataset_iterator_position():
    iterator = iter(mt.data.Dataset.range(10).batch(3))
    next(iterator)
    path = mt.train.Checkpoint(it=iterator).save("./i")
    next(iterator)
    again = iter(mt.data.Dataset.range(10).batch(3))
    mt.train.Checkpoint(it=again).restore(path)
    assert next(again).numpy().tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="saved it after 1 elements, but this dataset has only 0"):
        mt.train.Checkpoint(it=iter(mt.data.Dataset.range(0))).restore(path)


def test_manager_numbering_deletion_and_state():
    ckpt = mt.train.Checkpoint(v=mt.Variable([1.0, 2.0, 3.0]))
    ckpt.save("./a/c")  # save_counter 1
    manager = mt.train.CheckpointManager(ckpt, "./m", max_to_keep=2, checkpoint_name="foo")
    assert manager.latest_checkpoint is None and manager.directory == "./m"
    # TensorFlow 2.21 gives these paths: a given number does not stop save_counter from counting
    assert manager.save(checkpoint_number=7) == "./m/foo-7"
    assert manager.save() == "./m/foo-3"
    assert manager.save() == "./m/foo-4"
    assert manager.checkpoints == ["./m/foo-3", "./m/foo-4"]
    assert sorted(os.listdir("./m")) == [
        "checkpoint",
        "foo-3.data-00000-of-00001",
        "foo-3.index",
        "foo-4.data-00000-of-00001",
        "foo-4.index",
    ]
    lines = open("./m/checkpoint").read().splitlines()
    assert lines[:3] == [
        'model_checkpoint_path: "foo-4"',
        'all_model_checkpoint_paths: "foo-3"',
        'all_model_checkpoint_paths: "foo-4"',
    ]
    assert [line.split(":")[0] for line in lines[3:]] == ["all_model_checkpoint_timestamps"] * 2 + [
        "last_preserved_timestamp"
    ]

    target = mt.Variable([9.0, 9.0, 9.0])
    called = []
    again = mt.train.CheckpointManager(
        mt.train.Checkpoint(v=target), "./m", max_to_keep=2, checkpoint_name="foo", init_fn=lambda: called.append(1)
    )
    assert again.checkpoints == ["./m/foo-3", "./m/foo-4"]
    assert again.restore_or_initialize() == "./m/foo-4" and target.numpy().tolist() == [1.0, 2.0, 3.0]
    assert called == []
    empty = mt.train.CheckpointManager(mt.train.Checkpoint(v=target), "./e", 2, init_fn=lambda: called.append(1))
    assert empty.restore_or_initialize() is None and called == [1]


def test_manager_arguments():
    ckpt = mt.train.Checkpoint(v=mt.Variable(1.0))
    with pytest.raises(ValueError, match=r"^Expected a positive integer or `None` for `max_to_keep`, got 0\.$"):
        mt.train.CheckpointManager(ckpt, "./m", max_to_keep=0)
    with pytest.raises(ValueError, match="^`step_counter` should be passed if `checkpoint_interval` is not None.$"):
        mt.train.CheckpointManager(ckpt, "./m", max_to_keep=2, checkpoint_interval=5)
    step = mt.Variable(0, dtype="int64")
    manager = mt.train.CheckpointManager(ckpt, "./s", None, step_counter=step, checkpoint_interval=5)
    saved = []
    for _ in range(12):
        saved.append(manager.save())
        step.assign_add(1)
    assert [s for s in saved if s] == ["./s/ckpt-1", "./s/ckpt-2", "./s/ckpt-3"]  # steps 0, 5 and 10
    assert saved.count(None) == 9
    assert manager.save(check_interval=False) == "./s/ckpt-4"  # step 12: the interval is not checked
    assert manager.save(check_interval=False) is None  # step 12 again: already saved
    # keep_checkpoint_every_n_hours: a checkpoint older than the hours is left on disk, out of the list
    keeper = mt.train.CheckpointManager(ckpt, "./k", 1, keep_checkpoint_every_n_hours=1e-12)
    first = keeper.save()
    keeper.save()
    assert keeper.checkpoints == ["./k/ckpt-6"] and os.path.exists(first + ".index")


def test_options_accepted_and_write_callbacks_called():
    seen = []
    options = mt.train.CheckpointOptions(experimental_io_device="/job:localhost", experimental_write_callbacks=[
        lambda path: seen.append(path)
    ])  # fmt: skip
    path = mt.train.Checkpoint(v=mt.Variable(1.0)).save("./o/c", options=options)
    assert seen == [path] and options.experimental_io_device == "/job:localhost"


def test_checkpoint_inside_mt_function_is_refused_and_a_traced_read_sees_restored_values():
    v = mt.Variable(2.0)
    ckpt = mt.train.Checkpoint(v=v)
    path = ckpt.save("./f")

    @mt.function
    def save_inside():
        return ckpt.save("./g")

    with pytest.raises(RuntimeError, match="^Checkpoint.save was called inside an mt.function"):
        save_inside()
    manager = mt.train.CheckpointManager(ckpt, "./fm", max_to_keep=1)

    @mt.function
    def manager_save_inside():
        return manager.save()

    with pytest.raises(RuntimeError, match="^CheckpointManager.save was called inside an mt.function"):
        manager_save_inside()
    assert int(ckpt.save_counter) == 1  # nothing counted

    @mt.function
    def double():
        return v * 2.0

    assert double().numpy() == 4.0
    v.assign(10.0)
    assert double().numpy() == 20.0
    ckpt.restore(path)
    assert double().numpy() == 4.0  # the graph reads the restored variable, not a value kept when traced


def test_gradient_through_a_restored_variable_matches_finite_differences():
    w = mt.Variable([0.5, -1.5])
    path = mt.train.Checkpoint(w=w).save("./g")
    w2 = mt.Variable([0.0, 0.0])
    mt.train.Checkpoint(w=w2).restore(path)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.sin(w2) * w2)
    grad = tape.gradient(y, w2).numpy()

    def f(x):
        return np.sum(np.sin(x) * x)

    x0, eps = np.array([0.5, -1.5]), 1e-6
    numeric = [(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5)


def test_root_checkpoint_and_missing_names():
    m = M()
    path = mt.train.Checkpoint(root=m).write("./r")
    assert "w/.ATTRIBUTES/VARIABLE_VALUE" in dict(mt.train.list_variables(path))
    with pytest.raises(AttributeError, match="minitape has no tf.train.Saver: TensorFlow 1"):
        mt.train.Saver  # noqa: B018
    assert mt.train.Checkpoint is not None and "train" not in mt.missing.TOP_LEVEL


def test_root_checkpoint_restores_variables_made_later_into_the_root():
    class Lazy(mt.Module):
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = mt.Variable(mt.zeros([x.shape[-1]]))
            return x * self.w

    model = Lazy()
    model(mt.ones([3]))
    model.w.assign([1.0, 2.0, 3.0])
    path = mt.train.Checkpoint(root=model).save("./lazy")
    assert "w/.ATTRIBUTES/VARIABLE_VALUE" in dict(mt.train.list_variables(path))
    fresh = Lazy()
    status = mt.train.Checkpoint(root=fresh).restore(path)
    assert fresh(mt.ones([3])).numpy().tolist() == [1.0, 2.0, 3.0]
    status.assert_consumed()


def test_an_object_of_another_kind_at_a_saved_path_is_a_clear_error():
    path = mt.train.Checkpoint(net=mt.Variable(1.0)).save("./k")
    with pytest.raises(
        ValueError, match=r"Cannot restore \(root\)\.net: the checkpoint holds a VARIABLE_VALUE .* is M\."
    ):
        mt.train.Checkpoint(net=M()).restore(path)


def test_objects_waiting_for_a_restore_can_still_be_collected():
    import gc
    import weakref

    from minitape.namespaces import module

    class Lazy(mt.Module):
        pass

    source = Lazy()
    source.w = mt.Variable(1.0)
    path = mt.train.Checkpoint(m=source).save("./wait")
    waiting = Lazy()
    status = mt.train.Checkpoint(m=waiting).restore(path)
    assert id(waiting) in module.AWAITING  # its `w` is not there yet
    ref = weakref.ref(waiting)
    del waiting, status
    gc.collect()
    assert ref() is None and all(entry.ref() is not None for entry in module.AWAITING.values())


def test_a_layer_weight_held_by_no_attribute_is_saved_under_own_weights():
    class Odd(mt.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(2,), initializer="ones")
            self.add_weight(name="hidden", shape=(2,), initializer="random_normal")  # kept by no attribute

        def call(self, x):
            return x * self.w + self.weights[1]

    layer = Odd()
    layer(mt.ones([1, 2]))
    path = mt.train.Checkpoint(layer=layer).save("./odd")
    assert [k for k, _ in mt.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "layer/_own_weights/1/.ATTRIBUTES/VARIABLE_VALUE",
        "layer/w/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
    ]
    fresh = Odd()
    fresh(mt.ones([1, 2]))
    mt.train.Checkpoint(layer=fresh).restore(path).assert_consumed()
    np.testing.assert_array_equal(fresh.weights[1].numpy(), layer.weights[1].numpy())
