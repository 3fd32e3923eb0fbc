"""`mt.Module`: `tf.Module`, a named container that finds the variables and submodules kept in its attributes.

Tracking needs no registration: `variables` walks the instance's attributes (looking
inside lists, tuples and dicts, nested) in TensorFlow's order: attributes sorted by
name, dict entries sorted by key, lists in order; first this module's own leaves,
then each submodule's, depth first. Each object is reported once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from minitape import name_scope as _open_scope
from minitape.engine.variables import Variable
from minitape.values import nest


def _camel_to_snake(name: str) -> str:
    """'MyDenseLayer' -> 'my_dense_layer': the default name of a module, as TensorFlow makes it."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class ModuleNameScope:
    """`with module.name_scope:` labels the ops run inside with the module's name; reusable, as in TensorFlow."""

    def __init__(self, name: str) -> None:
        self.name = name + "/"
        self._scopes: list = []

    def __enter__(self) -> str:
        scope = _open_scope(self.name[:-1])
        self._scopes.append(scope)
        return scope.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._scopes.pop().__exit__(*exc)

    def __repr__(self) -> str:
        return f"<name_scope {self.name!r}>"


# Checkpoint restorations waiting for an attribute to be set (namespaces/checkpoint/tracking.py): id -> waits.
# Empty unless a restore found no object at some path; then `ATTRIBUTE_SET` restores into the new attribute.
AWAITING: dict[int, Any] = {}
ATTRIBUTE_SET: Callable[[Any, str, Any], None] | None = None


class Module:
    """Base class for objects that own variables: subclass it, assign variables and submodules as attributes."""

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if AWAITING and id(self) in AWAITING:  # a restored value waits for this attribute (a layer's new kernel)
            ATTRIBUTE_SET(self, name, value)

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not name.isidentifier():
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                "(e.g. a valid class name), such as 'dense_1'."
            )
        self._name = name
        self._module_scope = ModuleNameScope(name)

    @property
    def name(self) -> str:
        """The name given to the constructor, or the class name in snake_case."""
        return self._name

    @property
    def name_scope(self) -> ModuleNameScope:
        """A context manager: `with self.name_scope:` groups the ops of this module under its name."""
        return self._module_scope

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable owned by this module and its submodules, in TensorFlow's order."""
        return tuple(_walk(self, _is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The variables created with trainable=True, of this module and its submodules."""
        return tuple(_walk(self, lambda x: _is_variable(x) and x.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(_walk(self, lambda x: _is_variable(x) and not x.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module found in the attributes, recursively: direct children first, then theirs."""
        return tuple(_walk(self, lambda x: isinstance(x, Module)))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorate a method so that it runs inside `self.name_scope`."""

        @functools.wraps(method)
        def in_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return in_scope

    def __repr__(self) -> str:
        if "_name" not in self.__dict__:  # a subclass whose __init__ did not call Module's (TensorFlow's guides do)
            return object.__repr__(self)
        return f"<{type(self).__module__}.{type(self).__name__} object named {self.name!r}>"


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _walk(module: Module, predicate: Callable[[Any], bool]) -> Iterator[Any]:
    """The leaves satisfying `predicate`: this module's attributes first, then each submodule's (TF's order)."""
    seen = {id(module)}
    yield from _walk_module(module, predicate, seen, [])


def _walk_module(module: Module, predicate: Callable, seen: set, stack: list) -> Iterator[Any]:
    found_modules = []
    attributes = vars(module)
    for key in sorted(attributes):
        for leaf in nest.flatten(attributes[key]):
            if id(leaf) in seen:  # identity: each object once, and no cycles
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if isinstance(leaf, Module):
                found_modules.append(leaf)
    stack.append(id(module))
    for child in found_modules:
        if id(child) not in stack:
            yield from _walk_module(child, predicate, seen, stack)
    stack.pop()
