"""`tf.train.Checkpoint`: save the values of the variables reachable from some objects, and put them back.

Saving walks the object graph (tracking.py) breadth first and writes every leaf's value under its path. Restoring
walks the saved graph and the live objects side by side, edge name by edge name: a value whose object exists is
assigned at once; one whose object does not exist yet (a Keras layer not built, a list item not appended) waits and
is assigned when the object appears. The status `restore` returns says what matched.
"""

from __future__ import annotations

import inspect
import os
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.variables import Variable
from minitape.function.scopes import init_scope
from minitape.namespaces.checkpoint import storage, tracking
from minitape.values import errors


class CheckpointOptions:
    """`tf.train.CheckpointOptions`: accepted and kept. Writing is synchronous and local here, so the I/O device,
    async writing and sharding callbacks change nothing, and slots are always written and restored
    (`experimental_skip_slot_variables` is kept only); `experimental_write_callbacks` are called after each write,
    with the path if they take an argument."""

    def __init__(
        self,
        experimental_io_device: str | None = None,
        experimental_enable_async_checkpoint: bool = False,
        experimental_write_callbacks: list | None = None,
        enable_async: bool = False,
        experimental_skip_slot_variables: bool = False,
        experimental_sharding_callback: Any = None,
    ) -> None:
        self.experimental_io_device = experimental_io_device
        self.enable_async = enable_async or experimental_enable_async_checkpoint
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


def refuse_in_trace(method: str, owner: str = "Checkpoint") -> None:
    if state.tracers:
        raise RuntimeError(
            f"{owner}.{method} was called inside an mt.function: a traced graph would replay the values it saw "
            f"when traced. Call {method} outside the function (e.g. after each training step), as eager code does"
        )


def _as_path(path: Any, method: str) -> str:
    if isinstance(path, (str, os.PathLike)):
        return os.fspath(path)
    raise TypeError(f"Checkpoint.{method} takes a path (a str), got {type(path).__name__}: {path!r}")


def _dotted(path: str) -> str:
    return "(root)" + "".join("." + part for part in path.split("/") if part)


# ---- saving ------------------------------------------------------------------------------------------------------
def collect(root: Any) -> tuple[list[dict], dict[str, np.ndarray]]:
    """The object graph from `root` (nodes: children by name, path, leaf attribute) and the values by key."""
    nodes: list[dict] = [{"path": "", "children": {}, "attribute": None}]
    number = {tracking.identity(root): 0}
    values: dict[str, np.ndarray] = {}
    queue = deque([(root, 0)])
    while queue:
        obj, node_id = queue.popleft()
        for name, child in tracking.children(obj):
            key = tracking.identity(child)
            if key not in number:
                number[key] = len(nodes)
                path = f"{nodes[node_id]['path']}/{name}".lstrip("/")
                attribute = tracking.leaf_attribute(child)
                nodes.append({"path": path, "children": {}, "attribute": attribute})
                if attribute is not None:
                    values[f"{path}/.ATTRIBUTES/{attribute}"] = tracking.read_leaf(child)
                queue.append((child, number[key]))
            nodes[node_id]["children"][name] = number[key]
    return nodes, values


# ---- restoring ---------------------------------------------------------------------------------------------------
class _Restoration:
    """One restore: which saved nodes found their objects (now or later), and which objects found a node."""

    def __init__(self, reader: storage.CheckpointReader) -> None:
        self.reader, self.nodes = reader, reader.nodes()
        # identity -> a weak reference to the object bound to a node. Waits for objects not made yet keep this
        # restoration alive (module.AWAITING): it holds no object strongly, so that they can still be collected.
        self.bound: dict[Any, Callable[[], Any]] = {}
        self.restored: set[int] = {0}

    def match(self, obj: Any, node_id: int) -> None:
        key = tracking.identity(obj)
        known = self.bound.get(key)
        if known is not None and known() is obj:
            return
        if type(obj) not in (list, tuple, dict):  # a plain container is walked again if reached twice
            self.bound[key] = weakref.ref(obj)
        self.restored.add(node_id)
        node = self.nodes[node_id]
        if node["attribute"] is not None:
            self._assign(obj, node)
        present = dict(tracking.children(obj))
        for name, child_id in node["children"].items():
            if name in present:
                self.match(present[name], child_id)
            elif tracking.is_optimizer(obj) and name == "_variables":  # not built yet: its slots wait in it
                self.restored.add(child_id)
                for position, slot_id in self.nodes[child_id]["children"].items():
                    self._await_slot(obj, int(position), slot_id)
            elif isinstance(obj, tracking.Group) and obj.name == "_variables":
                self._await_slot(obj.owner, int(name), child_id)
            elif tracking.can_wait(obj):
                owner = _owner_of(obj, name)
                tracking.wait_for(owner, name, lambda value, child_id=child_id: self.match(value, child_id))

    def _assign(self, obj: Any, node: dict) -> None:
        key = f"{node['path']}/.ATTRIBUTES/{node['attribute']}"
        if tracking.leaf_attribute(obj) != node["attribute"]:
            raise ValueError(
                f"Cannot restore {_dotted(node['path'])}: the checkpoint holds a {node['attribute']} there (key "
                f"{key!r}), but the object at that path now is {type(obj).__name__}. The program's objects must "
                "have the structure they had when saved (the same attribute names holding the same kinds of objects)"
            )
        value = np.asarray(self.reader.get_tensor(key))
        if isinstance(obj, tracking.Slot):  # kept by the optimizer until it makes the slot, if it has not yet
            obj.optimizer._restored_slots[obj.position] = (value, lambda: None)
            slots = obj.optimizer._slots.get(obj.variable.id)
            if slots is not None:
                obj.optimizer._fill_restored_slots(obj.variable, slots)
        elif isinstance(obj, Variable):
            _check_fits(obj, value, key)
            with init_scope():  # a deferred restore may come while a layer is built in a trace: once, not replayed
                obj.assign(value)
        else:
            obj._restore_position(int(value))

    def _await_slot(self, optimizer: Any, position: int, child_id: int) -> None:
        """A slot of an optimizer that has not made it yet: the optimizer fills it from here when it does."""
        node = self.nodes[child_id]
        value = np.asarray(self.reader.get_tensor(f"{node['path']}/.ATTRIBUTES/{node['attribute']}"))
        optimizer._restored_slots[position] = (value, lambda: self.restored.add(child_id))


def _owner_of(obj: Any, name: str) -> Any:
    """Where an attribute that is not there yet will be set: a `Checkpoint(root=model)` waits on the model for
    the names that are not its own objects."""
    if tracking.is_checkpoint(obj) and obj._root is not None and name not in obj._checkpoint_dependencies:
        return obj._root if name != "save_counter" else obj
    return obj


def _check_fits(variable: Variable, value: np.ndarray, key: str) -> None:
    if not variable.shape.is_compatible_with(value.shape):
        raise ValueError(
            f"Received incompatible tensor with shape {value.shape} when attempting to restore variable with shape "
            f"{tuple(variable.shape)} and name {variable.name}."
        )
    wanted = variable.dtype.name
    if value.dtype.name != wanted:
        raise errors.InvalidArgumentError(
            f"tensor_name = {key}; expected dtype {wanted} does not equal original dtype {value.dtype.name}"
        )


class CheckpointLoadStatus:
    """What `restore` returns: assertions about how the checkpoint and the objects matched."""

    def __init__(self, restoration: _Restoration, root: Any) -> None:
        self._restoration, self._root = restoration, root

    def _unmatched_objects(self) -> list[Any]:
        bound = self._restoration.bound
        seen, unmatched = set(bound), []
        queue = deque([self._root])
        while queue:
            obj = queue.popleft()
            for _, child in tracking.children(obj):
                key = tracking.identity(child)
                if key in seen:
                    continue
                seen.add(key)
                if not isinstance(child, (list, tuple, dict)):
                    unmatched.append(child)
                queue.append(child)
        return unmatched

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Raise AssertionError unless every object reachable from the root now was given a saved value."""
        unmatched = self._unmatched_objects()
        if unmatched:
            shown = ", ".join(repr(o) for o in unmatched[:10])
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {min(len(unmatched), 10)} of {len(unmatched)} unmatched "
                f"objects: [{shown}]"
            )
        return self

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raise AssertionError unless every saved value found its object and every object its value."""
        restoration = self._restoration
        for node_id, node in enumerate(restoration.nodes):
            if node["attribute"] is not None and node_id not in restoration.restored:
                raise AssertionError(
                    f"Unresolved object in checkpoint {_dotted(node['path'])}: attributes {{name: "
                    f'"{node["attribute"]}", checkpoint_key: "{node["path"]}/.ATTRIBUTES/{node["attribute"]}"}}'
                )
        return self.assert_existing_objects_matched()

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Raise AssertionError if nothing but the root matched a saved value."""
        if len(self._restoration.bound) < 2:
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this means that the "
                "checkpoint does not match the Python program. The following objects have no matching checkpointed "
                f"value: {self._unmatched_objects()!r}"
            )
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Say that a partial match is expected. minitape warns of no unmatched value, so it only returns self."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: the values were assigned eagerly (or are assigned when their objects appear)."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: the values were assigned eagerly, and new variables are initialised when made."""


class InitializationOnlyStatus:
    """What `restore(None)` returns: nothing is restored, so every assertion fails, as in TensorFlow."""

    def _nothing(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self) -> None:
        self._nothing()

    def assert_existing_objects_matched(self) -> None:
        self._nothing()

    def assert_nontrivial_match(self) -> None:
        self._nothing()

    def expect_partial(self) -> InitializationOnlyStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to restore."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: variables are initialised when they are made."""


def _check_trackable(name: str, value: Any) -> None:
    if not tracking.is_trackable(value) and not isinstance(value, (list, tuple, dict)):
        raise ValueError(
            f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from `Trackable`), got "
            f"{value!r}. minitape tracks mt.Variable, mt.Module (Keras layers and models), Keras optimizers, "
            "dataset iterators and Checkpoints, and lists and dicts of them"
        )


class Checkpoint:
    """`tf.train.Checkpoint(**objects)`: save and restore the variables reachable from the objects, by name."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_checkpoint_dependencies", {})
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_root", root)
        if root is not None:
            _check_trackable("root", root)
        for name, value in sorted(kwargs.items()):  # TensorFlow's order of the objects: by name
            _check_trackable(name, value)
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        value = tracking.wrap(value)
        if tracking.is_trackable(value) or isinstance(value, (list, tuple, dict)):
            self._checkpoint_dependencies[name] = value
            vars(self).pop(name, None)
            tracking.arrived(self, name, value)
        else:  # a number or a string: kept, not saved (as TensorFlow ignores it)
            self._checkpoint_dependencies.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        dependencies = vars(self).get("_checkpoint_dependencies", {})
        if name in dependencies:
            return dependencies[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if self._checkpoint_dependencies.pop(name, None) is None:
            object.__delattr__(self, name)

    @property
    def _tracked(self) -> dict[str, Any]:
        """The named edges of this checkpoint: the root's (if one was given), the objects, then save_counter."""
        edges = dict(tracking.children(self._root)) if self._root is not None else {}
        edges.update(self._checkpoint_dependencies)
        if self._save_counter is not None:
            edges["save_counter"] = self._save_counter
        return edges

    @property
    def save_counter(self) -> Variable:
        """An int64 Variable counting the calls of `save`; it numbers the files ('ckpt-3')."""
        if self._save_counter is None:
            object.__setattr__(
                self, "_save_counter", Variable(np.int64(0), trainable=False, name="save_counter", dtype="int64")
            )
        return self._save_counter

    # ---- writing ----------------------------------------------------------------------------------------------
    def write(self, file_prefix: Any, options: CheckpointOptions | None = None) -> str:
        """Write the checkpoint at `file_prefix` exactly (no number, no `checkpoint` file); return the prefix."""
        refuse_in_trace("write")
        prefix = _as_path(file_prefix, "write")
        nodes, values = collect(self)
        storage.write(prefix, nodes, values)
        for callback in (options or CheckpointOptions()).experimental_write_callbacks:
            callback(prefix) if inspect.signature(callback).parameters else callback()
        return prefix

    def save(self, file_prefix: Any, options: CheckpointOptions | None = None) -> str:
        """Add 1 to `save_counter`, write at 'file_prefix-N' and record it in the directory's `checkpoint` file."""
        refuse_in_trace("save")
        prefix = _as_path(file_prefix, "save")
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{prefix}-{int(counter.numpy())}", options)
        directory = os.path.dirname(path) or "."
        previous = storage.read_state(directory)
        paths = [storage.full_path(directory, p) for p in (previous or {}).get("all_model_checkpoint_paths", [])]
        paths = [p for p in paths if os.path.normpath(p) != os.path.normpath(path)] + [path]
        storage.write_state(directory, path, paths)
        return path

    def sync(self) -> None:
        """Nothing to wait for: minitape writes synchronously."""

    # ---- reading ----------------------------------------------------------------------------------------------
    def read(self, save_path: Any, options: CheckpointOptions | None = None) -> CheckpointLoadStatus:
        """Restore from a checkpoint written by `write` (or `save`): as `restore`, for a path that is given."""
        refuse_in_trace("read")
        reader = storage.CheckpointReader(_as_path(save_path, "read"))
        if "save_counter" in reader.nodes()[0]["children"]:
            self.save_counter  # noqa: B018 - made now, so that the saved count is restored into it
        restoration = _Restoration(reader)
        restoration.match(self, 0)
        return CheckpointLoadStatus(restoration, self)

    def restore(self, save_path: Any, options: CheckpointOptions | None = None) -> Any:
        """Restore the values saved at `save_path` into these objects (None: nothing, an InitializationOnlyStatus).

        Values whose objects do not exist yet are assigned when the objects appear. The status's
        `assert_consumed()`, `assert_existing_objects_matched()` and `expect_partial()` say how well it matched.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        try:
            return self.read(save_path, options)
        except errors.NotFoundError as error:
            raise errors.NotFoundError(
                f"Error when restoring from checkpoint or SavedModel at {save_path}: {error}\nPlease double-check that "
                "the path is correct. You may be missing the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1')."
            ) from None

    def __repr__(self) -> str:
        return f"<mt.train.Checkpoint tracking {sorted(self._tracked)}>"
