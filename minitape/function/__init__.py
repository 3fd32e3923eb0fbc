"""`mt.function`: TensorFlow's `tf.function`. The Python function runs once per input signature to record a graph
of numpy calls, and later calls replay that graph.

signature.py  which calls share a graph (TensorFlow's tracing rules), and `input_signature`
trace.py      the tracer the engine reports to while the function runs, and `runs_each_call`
graph.py      what a trace records: slots and steps
replay.py     running a graph: as plain numpy calls, or op by op through the engine when each op must be heard
call_op.py    a call under a GradientTape: the fast run, recorded as one op whose gradient replays the graph
polymorphic.py  `Function` and `ConcreteFunction`
scopes.py     `py_function`, `init_scope`, `executing_eagerly`, `inside_function`
view.py       a traced graph drawn

`mt.function` is the decorator itself, as `tf.function` is, so the attribute `minitape.function` is that function:
import this package's modules by their full path (`from minitape.function.view import GraphView`).
"""

from minitape.function.polymorphic import ConcreteFunction, Function, function
from minitape.function.scopes import executing_eagerly, init_scope, inside_function, py_function
from minitape.function.trace import runs_each_call

__all__ = ["ConcreteFunction", "Function", "function", "init_scope", "py_function", "runs_each_call"]
