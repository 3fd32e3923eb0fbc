"""`Function` (what `tf.function` returns) and `ConcreteFunction` (one traced graph), as TensorFlow names them.

A call looks up the graphs traced for its cache key (signature.py) and replays the first whose guards hold
(replay.py); if none does, it traces (trace.py): the Python function runs once, eagerly, recorded.
"""

from __future__ import annotations

import functools
import inspect
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
from minitape.function import call_op, replay, signature
from minitape.function.graph import AssignStep, Graph, GuardStep, Slot
from minitape.function.trace import Tracer, refuse_variables_made_per_call
from minitape.namespaces import missing
from minitape.ops.math_ops import identity
from minitape.values import nest
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_spec import TensorSpec

RETRACING_WARNING = (
    "{} out of the last {} calls to {} triggered tf.function retracing. Tracing is expensive and the excessive "
    "number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) passing tensors with "
    "different shapes, (3) passing Python objects instead of tensors. For (1), please define your @tf.function "
    "outside of the loop. For (2), @tf.function has reduce_retracing=True option that can avoid unnecessary "
    "retracing. For (3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing and "
    "https://www.tensorflow.org/api_docs/python/tf/function for  more details."
)  # TensorFlow 2.21's words (its double space included), logged when 5 of the last 10 calls traced


class _Settings:
    run_eagerly = False  # tf.config.run_functions_eagerly's switch, for every Function at once


_settings = _Settings()


def run_functions_eagerly(run_eagerly: bool) -> None:
    """`tf.config.run_functions_eagerly`: while True, calling a Function runs its Python function (no trace)."""
    _settings.run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _settings.run_eagerly


class ConcreteFunction:
    """One traced graph: call it with tensors of the shapes and dtypes it was traced for."""

    def __init__(self, graph: Graph, inputs: Any, outputs: Any, python_function: Callable) -> None:
        self.graph = graph
        self.program = replay.Program(graph)
        self._one_op = call_op.recordable(graph)  # under a tape alone, a call is one op
        self.structured_input_signature = inputs  # the traced call's arguments, a TensorSpec for each tensor
        self.output_specs = outputs  # its result, a TensorSpec for each tensor
        self.name = graph.name
        self._python_function = python_function
        self.trace_number = 0  # which trace of its Function made it (Function._trace numbers them from 0)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        traced, returns = self.structured_input_signature, self.output_specs
        try:
            leaves = signature.bind_concrete(self.name, self._python_function, traced, returns, args, kwargs)
        except TypeError as error:
            specs = [x for x in nest.flatten(traced) if isinstance(x, TensorSpec)]
            tensor_names = [self.graph.input_names[slot] for slot in self.graph.inputs]
            function = getattr(self._python_function, "__name__", self.name)
            leaves = signature.bind_flat(self.name, function, tensor_names, specs, args, kwargs, error)
        return self.call_flat(leaves)

    @property
    def function_type(self) -> FunctionType:
        """The traced signature, printed as TensorFlow prints it: `(a: TensorSpec(...)) -> TensorSpec(...)`."""
        args, kwargs = self.structured_input_signature
        pairs = [*zip(self._names(len(args)), args), *kwargs.items()]
        inputs = ", ".join(f"{name}: {signature.type_text(value)}" for name, value in pairs)
        return FunctionType(f"({inputs}) -> {signature.type_text(self.output_specs)}")

    @property
    def inference_fn(self) -> Callable:
        """The graph called on its input tensors alone, in order (TensorFlow's AtomicFunction)."""
        return lambda *tensors: self.call_flat(list(tensors))

    def call_flat(self, leaves: list) -> Any:
        """Run the graph on the call's tensors (in `nest.flatten` order): fast; under tapes alone, recorded as one
        op (call_op.py); op by op when an accumulator, an outer trace or a listener hears each op."""
        if state.tapes or state.accumulators or state.tracers or state.listeners:
            tensors = [leaf if type(leaf) is Tensor else Tensor(np.asarray(leaf)) for leaf in leaves]
            if self._one_op and not (state.accumulators or state.tracers or state.listeners):
                return call_op.call(self.program, tensors)
            values = replay.run_as_ops(self.graph, tensors)
            return nest.map_structure(lambda x: values[x.index] if type(x) is Slot else x, self.graph.outputs)
        arrays = [leaf._value if type(leaf) is Tensor else np.asarray(leaf) for leaf in leaves]
        return self.program.outputs(replay.run(self.program, arrays))

    @property
    def variables(self) -> list:
        return self.graph.variables()

    def pretty_printed_signature(self) -> str:
        args, kwargs = self.structured_input_signature
        lines = ["ConcreteFunction Input Parameters:"]
        for name, value in [*zip(self._names(len(args)), args), *kwargs.items()]:
            lines.append(f"  {name} (POSITIONAL_OR_KEYWORD): {signature.type_text(value)}")
        lines += ["Output Type:", f"  {signature.type_text(self.output_specs)}", "Captures:"]
        lines += [f"  {v.name}: {TensorSpec(v.shape, v.dtype)!r}" for v in self.variables] or ["  None"]
        return "\n".join(lines)

    def _names(self, count: int) -> list[str]:
        return signature.parameter_names(self._python_function, count)

    __str__ = pretty_printed_signature

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name} at 0x{id(self):X}>"


class FunctionType:
    """What `ConcreteFunction.function_type` gives: the signature as TensorFlow prints it."""

    def __init__(self, text: str) -> None:
        self._text = text

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


class Function:
    """What `mt.function` returns: calling it traces the Python function once per signature, then replays."""

    def __init__(
        self,
        func: Callable,
        input_signature: Any = None,
        autograph: bool = True,
        jit_compile: Any = None,
        reduce_retracing: bool = False,
        experimental_implements: Any = None,
        experimental_autograph_options: Any = None,
        experimental_attributes: Any = None,
        experimental_relax_shapes: Any = None,
        experimental_compile: Any = None,
        experimental_follow_type_hints: Any = None,
        name: str | None = None,
    ) -> None:
        functools.update_wrapper(self, func)
        self.python_function = func  # TensorFlow's name for the wrapped function
        self.input_signature = None if input_signature is None else list(input_signature)
        # jit_compile asks XLA to compile the graph; minitape replays it as numpy calls either way
        self._options = {"autograph": autograph, "jit_compile": jit_compile, "reduce_retracing": reduce_retracing}
        self._name = name or getattr(func, "__name__", "function")
        self._cache: dict[Any, list[ConcreteFunction]] = {}
        self._tracing_count = 0
        self._bound: dict[int, tuple[Any, Function]] = {}
        self._detector = _detector(func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _settings.run_eagerly:  # tf.config.run_functions_eagerly(True): the Python function, untraced
            return self.python_function(*args, **kwargs)
        if self.input_signature is not None:
            args, kwargs = signature.bind(self.input_signature, args, kwargs, self.python_function), {}
        leaves: list = []
        key = signature.cache_key((args, kwargs), leaves)
        for concrete in self._cache.get(key, ()):
            if state.tracers and concrete.program.guarded:
                continue  # an outer trace would keep the ops of a run a guard gives up: trace this call in it
            try:
                result = concrete.call_flat(leaves)
            except replay.GuardFailedError:
                continue  # a branch goes another way for these values: the next graph, or a new trace
            if not state.tracers:  # TensorFlow counts the calls made eagerly, not those inside a trace
                self._detector.called_without_tracing()
            return result
        return self._trace(key, args, kwargs)[0]

    def _trace(self, key: Any, args: tuple, kwargs: dict) -> tuple[Any, ConcreteFunction]:
        graph = Graph(self._name)
        tracer = Tracer(graph, allow_variables=self._tracing_count == 0)
        names = _input_names(self.python_function, args, kwargs)
        flat = nest.flatten((args, kwargs))
        placed = []
        for leaf in flat:
            if type(leaf) is Tensor or isinstance(leaf, np.ndarray):
                # an input of its own (f(x, x) has two), made by an op: a tape around the call, or the graph
                # of an outer function being traced, sees it come from the caller's tensor
                placeholder = identity(leaf) if type(leaf) is Tensor else Tensor(np.asarray(leaf))
                tracer.input(placeholder, names[len(graph.inputs)])
                leaf = placeholder
            placed.append(leaf)
        call_args, call_kwargs = nest.pack_sequence_as((args, kwargs), placed)
        state.tracers.append(tracer)
        try:
            result = nest.map_structure(_as_output, self.python_function(*call_args, **call_kwargs))
            graph.outputs = nest.map_structure(lambda x: Slot(tracer.slot_of(x)) if type(x) is Tensor else x, result)
        finally:
            state.tracers.remove(tracer)
        tracer.close()
        # the caller's results: tensors of their own (a tape around the call records the copy), as the traced
        # ones are now out of scope
        result = nest.map_structure(lambda x: identity(x) if type(x) is Tensor else x, result)
        graph.prune()
        refuse_variables_made_per_call(graph)
        specs = nest.map_structure(_spec_of, (args, kwargs))
        concrete = ConcreteFunction(graph, specs, nest.map_structure(_spec_of, result), self.python_function)
        concrete.trace_number = self._tracing_count
        self._cache.setdefault(key, []).append(concrete)
        self._tracing_count += 1
        if not state.tracers:  # a call inside another function's trace is not counted (TensorFlow's rule)
            self._detector.called_with_tracing(repr(getattr(self.python_function, "__func__", self.python_function)))
        return result, concrete

    def branch_after_state_change(self) -> GuardStep | None:
        """A Python branch on a tensor (`if`, `while`) that one of the traced graphs takes after a call that changed
        state (an optimizer's update): if it goes the other way at a later call, that call raises, since the
        update cannot be taken back to trace the other branch (replay.py). None if no graph has one."""
        for concretes in self._cache.values():
            for concrete in concretes:
                after = concrete.program.no_retreat
                for step in concrete.graph.steps:
                    if type(step) is GuardStep and step.kind == "bool" and id(step) in after:
                        return step
        return None

    def pretty_printed_concrete_signatures(self) -> str:
        """Each traced graph's inputs, output and captured variables, in the order they were traced."""
        concretes = sorted((c for graphs in self._cache.values() for c in graphs), key=lambda c: c.trace_number)
        return "\n\n".join(c.pretty_printed_signature()[len("ConcreteFunction ") :] for c in concretes)

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (run to record a graph)."""
        return self._tracing_count

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The graph for these arguments (tensors, or TensorSpecs of fully known shapes), traced if need be.

        Tracing runs the Python function; for a TensorSpec it runs on zeros, and the variables the trace assigns
        are put back afterwards, so asking for the graph changes no state that variables hold.
        """
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        args, kwargs = nest.map_structure(_example, (args, kwargs))
        if self.input_signature is not None:
            args, kwargs = signature.bind(self.input_signature, args, kwargs, self.python_function), {}
        key = signature.cache_key((args, kwargs))
        if self._cache.get(key):
            return self._cache[key][0]
        saved: dict[int, tuple[Variable, np.ndarray]] = {}
        result, concrete = self._trace(key, args, kwargs)
        for step in concrete.graph.steps:
            if type(step) is AssignStep and id(step.variable) not in saved:
                saved[id(step.variable)] = (step.variable, step.old_value)
        for variable, value in saved.values():
            variable._value = value
        return concrete

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A decorated method: one Function per instance, as in TensorFlow (each traces and creates its own).

        It holds its instance weakly, so a model that goes away takes its graphs with it.
        """
        if instance is None:
            return self
        key = id(instance)
        held = self._bound.get(key)
        if held is None or held[0]() is not instance:
            try:
                ref = weakref.ref(instance, lambda _: self._bound.pop(key, None))
            except TypeError:  # an object that takes no weak reference stays alive
                ref = lambda: instance  # noqa: E731
            bound = Function(_weak_method(self.python_function, ref), **self._options)
            bound.input_signature = self.input_signature
            held = self._bound[key] = (ref, bound)
        return held[1]

    def __repr__(self) -> str:
        return f"<minitape.function.Function object at 0x{id(self):x}>"

    def __getattr__(self, name: str) -> Any:  # called only for names the object lacks
        if name in missing.FUNCTION:
            missing.raise_missing("tf.function", name, missing.FUNCTION)
        raise AttributeError(f"'Function' object has no attribute {name!r}")


def function(func: Callable | None = None, **options: Any) -> Any:
    """`tf.function`: trace `func` into a graph once per input signature, and replay the graph on later calls.

    Python side effects (print, appending to a list) happen while tracing only; `mt.print` runs at every call.
    `input_signature` fixes the accepted shapes and dtypes; `jit_compile` is accepted and changes nothing.
    """
    if func is None:
        return lambda f: Function(f, **options)
    return Function(func, **options)


def _as_output(value: Any) -> Any:
    """A traced function's output: numbers, numpy values and variables become tensors; the rest passes unchanged."""
    if isinstance(value, (int, float, np.ndarray, np.generic)):  # bool is an int
        return convert_to_tensor(value)
    if isinstance(value, Variable):  # TensorFlow returns the value read at that moment, not the variable
        return value.read_value()
    from minitape.namespaces.tensor_array import TensorArray

    if isinstance(value, TensorArray):  # a Python list of this trace's tensors: a replay would return it unchanged
        raise TypeError(
            "a tf.function cannot return a TensorArray here (TensorFlow returns a variant tensor that eager code "
            "cannot read either): return its tensors, e.g. ta.stack()"
        )
    return value


def _weak_method(func: Callable, ref: Any) -> Callable:
    """`func` bound to the instance `ref` refers to, without keeping it alive (its signature without `self`)."""

    @functools.wraps(func)
    def method(*args: Any, **kwargs: Any) -> Any:
        return func(ref(), *args, **kwargs)

    method.__signature__ = inspect.signature(types.MethodType(func, ref()))
    method.__func__ = func  # the retracing warning names, and counts by, the function itself
    return method


def _spec_of(leaf: Any) -> Any:
    return TensorSpec(leaf.shape, leaf.dtype) if type(leaf) is Tensor or isinstance(leaf, np.ndarray) else leaf


def _example(leaf: Any) -> Any:
    """A TensorSpec as a tensor of zeros to trace with (its shape must be known)."""
    if not isinstance(leaf, TensorSpec):
        return leaf
    if not leaf.shape.is_fully_defined():
        raise ValueError(
            f"get_concrete_function: minitape traces graphs for known shapes; give {leaf!r} every size, "
            "or pass a tensor of the shape wanted"
        )
    return Tensor(np.zeros(tuple(leaf.shape), leaf.dtype.as_numpy_dtype))


def _input_names(func: Callable, args: tuple, kwargs: dict) -> list[str]:
    """Graph-mode names of the call's tensors: the parameter's name, numbered within a structure."""
    params = signature.parameter_names(func, len(args))
    names = []
    for name, value in [*zip(params, args), *sorted(kwargs.items())]:
        leaves = [x for x in nest.flatten(value) if type(x) is Tensor or isinstance(x, np.ndarray)]
        names += (
            [name] if len(leaves) == 1 and not nest.is_nested(value) else [f"{name}_{k}" for k in range(len(leaves))]
        )
    return names


class _FrequentTracing:
    """TensorFlow's detector: a warning (at most two per function) when 5 of the last 10 calls traced."""

    def __init__(self, most_warnings: int = 2) -> None:
        self.calls_per_tracing: list[int] = []
        self.call_count = 0
        self.warnings = 0
        self.most_warnings = most_warnings

    def called_with_tracing(self, name: str) -> None:
        self.call_count += 1
        self.calls_per_tracing.append(1)
        while self.calls_per_tracing and self.call_count - self.calls_per_tracing[0] > 10:
            self.call_count -= self.calls_per_tracing.pop(0)
        if self.warnings < self.most_warnings and len(self.calls_per_tracing) >= 5:
            self.warnings += 1
            warnings.warn(RETRACING_WARNING.format(len(self.calls_per_tracing), self.call_count, name), stacklevel=4)

    def called_without_tracing(self) -> None:
        if not self.calls_per_tracing:
            self.calls_per_tracing = [0]
        self.calls_per_tracing[-1] += 1
        self.call_count += 1


_DETECTORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _detector(func: Callable) -> _FrequentTracing:
    """One detector per Python function (a method's function), shared by every Function made from it."""
    key = getattr(func, "__func__", func)
    try:
        return _DETECTORS.setdefault(key, _FrequentTracing())
    except TypeError:  # a callable that takes no weak reference: its own detector each time
        return _FrequentTracing()


def without_retracing_warning(function: Function) -> Function:
    """`function` with a detector of its own that never warns: for a Function that TensorFlow traces once for
    every batch size (a `None` batch axis) where minitape traces once per size it sees (Keras' step functions)."""
    function._detector = _FrequentTracing(most_warnings=0)
    return function
