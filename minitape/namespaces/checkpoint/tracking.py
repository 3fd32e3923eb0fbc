"""What a checkpoint sees of Python objects: a graph whose edges are named, as TensorFlow's object graph.

An object's children are the trackable values of its attributes (named by the attribute), a list's items (named
"0", "1", ...) and a dict's values (named by the key). The leaves hold the numbers: a Variable ("VARIABLE_VALUE"),
an optimizer's slot, a dataset iterator's position ("ITERATOR_STATE"). A key in the file is the path from the root
to a leaf, e.g. `net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE`. Each object is saved once, under its shortest path
(breadth first); its other paths point to the same node of the graph.

A restoration that finds no object at a path waits on the parent (`Awaiting`): when the attribute (or list item, or
optimizer slot) appears, it is restored then, before its first use, as TensorFlow's deferred restoration does.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.variables import Variable
from minitape.namespaces import module as module_lib
from minitape.namespaces.data_elements import DatasetIterator

VARIABLE_VALUE = "VARIABLE_VALUE"
ITERATOR_STATE = "ITERATOR_STATE"

# A Keras layer's attributes that repeat what its named attributes hold, or hold no state of their own. Its list of
# the weights add_weight made, `_own_weights`, comes last: a weight held by an attribute too is saved under the
# attribute's name (the shorter path), one held nowhere else under `_own_weights/N`.
_LAYER_BOOKKEEPING = frozenset({"_own_weights", "_regularized", "_call_losses", "_inbound_node", "_graph", "_states"})


class ListWrapper(list):
    """A list kept by a Checkpoint: a value appended to it is restored if a restore waits for its index."""

    def append(self, value: Any) -> None:
        super().append(value)
        arrived(self, str(len(self) - 1), value)

    def extend(self, values: Any) -> None:
        for value in values:
            self.append(value)

    def __setitem__(self, index: Any, value: Any) -> None:
        super().__setitem__(index, value)
        if isinstance(index, int):
            arrived(self, str(index % len(self)), value)

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(dict):
    """A dict kept by a Checkpoint: a value stored under a key is restored if a restore waits for that key."""

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        arrived(self, str(key), value)

    def __repr__(self) -> str:
        return f"DictWrapper({dict.__repr__(self)})"


def wrap(value: Any) -> Any:
    """Lists and dicts assigned to a Checkpoint become wrappers (TensorFlow's ListWrapper), so appends are seen."""
    if type(value) is list:
        return ListWrapper(wrap(v) for v in value)
    if type(value) is dict:
        return DictWrapper((k, wrap(v)) for k, v in value.items())
    return value


class Slot:
    """An optimizer's slot (Adam's m of one variable, say), as a leaf: its array is read and written in place."""

    def __init__(self, optimizer: Any, variable: Variable, name: str, position: int) -> None:
        self.optimizer, self.variable, self.name, self.position = optimizer, variable, name, position

    @property
    def key(self) -> tuple:
        return (id(self.optimizer), self.variable.id, self.name)

    def value(self) -> np.ndarray:
        """The slot's array; zeros for a variable the optimizer was built for but has not updated yet (as Keras 3,
        which makes every slot when it is built)."""
        slots = self.optimizer._slots.get(self.variable.id)
        if slots is None:
            return np.zeros(self.variable.shape, self.variable.dtype.as_numpy_dtype)
        return slots[self.name]


def is_trackable(value: Any) -> bool:
    return (
        isinstance(value, (Variable, module_lib.Module, DatasetIterator, Slot))
        or is_checkpoint(value)
        or is_optimizer(value)
    )


def is_checkpoint(value: Any) -> bool:
    from minitape.namespaces.checkpoint.checkpoint import Checkpoint

    return isinstance(value, Checkpoint)


def is_optimizer(value: Any) -> bool:
    """A Keras optimizer; looked up only once minitape.keras is loaded (an optimizer cannot exist before)."""
    optimizers = sys.modules.get("minitape.keras.optimizers")
    return optimizers is not None and isinstance(value, optimizers.Optimizer)


def _is_layer(value: Any) -> bool:
    layers = sys.modules.get("minitape.keras.layers.base")
    return layers is not None and isinstance(value, layers.Layer)


def children(obj: Any) -> list[tuple[str, Any]]:
    """The named edges out of `obj`, in the order a walk takes them."""
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _holds_state(v)]
    if isinstance(obj, dict):
        return [(escape(str(k)), v) for k, v in obj.items() if _holds_state(v)]
    if isinstance(obj, (Variable, DatasetIterator, Slot)):
        return []
    if is_optimizer(obj):
        return optimizer_children(obj)
    if is_checkpoint(obj):
        return list(obj._tracked.items())
    if not _is_layer(obj):
        return [(escape(k), v) for k, v in vars(obj).items() if _holds_state(v)]
    found = [(escape(k), v) for k, v in vars(obj).items() if k not in _LAYER_BOOKKEEPING and _holds_state(v)]
    return found + [("_own_weights", obj._own_weights)] if obj._own_weights else found


def can_wait(obj: Any) -> bool:
    """Whether `obj` says when a child is added to it (a Module's or Checkpoint's attribute, a wrapper's item)."""
    return isinstance(obj, (module_lib.Module, ListWrapper, DictWrapper)) or is_checkpoint(obj)


def escape(name: str) -> str:
    """An attribute or key as one edge of a path: '/' and '.' escaped, as TensorFlow does."""
    return name.replace(".", "..").replace("/", "./") if "." in name or "/" in name else name


def _holds_state(value: Any) -> bool:
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return any(_holds_state(v) for v in items)
    return is_trackable(value)


def optimizer_children(optimizer: Any) -> list[tuple[str, Any]]:
    """Keras 3's names: `_iterations`, `_learning_rate`, `_variables/N` (the same two, then each variable's slots,
    variable by variable, as the optimizer was built) and `_trainable_variables/N` (the variables it updates)."""
    rate = optimizer._learning_rate
    rate = [rate] if isinstance(rate, Variable) else []
    built = list((optimizer._built_for or {}).values())
    slots = [
        Slot(optimizer, v, name, optimizer.slot_position(v, j))
        for v in built
        for j, name in enumerate(optimizer._slot_names)
    ]
    found = [("_iterations", optimizer.iterations), *[("_learning_rate", r) for r in rate]]
    if built:
        found.append(("_variables", Group(optimizer, "_variables", {str(s.position): s for s in slots})))
        found.append(("_trainable_variables", Group(optimizer, "_trainable_variables", dict(enumerate(built)))))
    return found


class Group(dict):
    """A numbered list an optimizer holds in Keras 3 (`_variables`, `_trainable_variables`), made at each walk."""

    def __init__(self, owner: Any, name: str, items: dict) -> None:
        super().__init__({str(k): v for k, v in items.items()})
        self.owner, self.name = owner, name

    @property
    def key(self) -> tuple:
        return (id(self.owner), self.name)


def identity(obj: Any) -> Any:
    """What makes two visits the same object: a slot is made again at each walk, so it is known by its key."""
    return obj.key if isinstance(obj, (Slot, Group)) else id(obj)


def leaf_attribute(obj: Any) -> str | None:
    if isinstance(obj, (Variable, Slot)):
        return VARIABLE_VALUE
    if isinstance(obj, DatasetIterator):
        return ITERATOR_STATE
    return None


def read_leaf(obj: Any) -> np.ndarray:
    if isinstance(obj, Slot):
        return np.array(obj.value())
    if isinstance(obj, DatasetIterator):
        return np.asarray(obj._position(), np.int64)
    return np.array(obj.numpy())


# ---- deferred restoration ----------------------------------------------------------------------------------------
class Awaiting:
    """The restorations waiting on one object: child name -> a callable that restores into the child once it is
    there. A later restore replaces an earlier one's wait for the same name (the newest checkpoint wins)."""

    def __init__(self, obj: Any) -> None:
        self.ref = weakref.ref(obj)  # modules, checkpoints and the wrappers all take weak references
        self.waits: dict[str, Callable[[Any], None]] = {}


def wait_for(obj: Any, name: str, restore: Callable[[Any], None]) -> None:
    """Restore into `obj`'s child `name` when it appears (see `arrived`)."""
    table = module_lib.AWAITING
    entry = table.get(id(obj))
    if entry is None or entry.ref() is not obj:
        entry = table[id(obj)] = Awaiting(obj)
        _forget_when_collected(obj)
    entry.waits[name] = restore


def _forget_when_collected(obj: Any) -> None:
    weakref.finalize(obj, module_lib.AWAITING.pop, id(obj), None)


def arrived(obj: Any, name: str, value: Any) -> None:
    """`obj.name = value` (or an append, a dict entry) happened: restore into `value` if a restore waits for it."""
    table = module_lib.AWAITING
    entry = table.get(id(obj)) if table else None
    name = escape(name)
    if entry is None or entry.ref() is not obj or name not in entry.waits:
        return
    if isinstance(obj, (list, dict)) or is_trackable(value) or isinstance(value, (list, tuple, dict)):
        restore = entry.waits.pop(name)
        if not entry.waits:
            del table[id(obj)]
        restore(value)


module_lib.ATTRIBUTE_SET = arrived
