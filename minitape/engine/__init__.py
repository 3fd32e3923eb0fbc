"""The engine: how minitape records ops on a tape and differentiates them. Read it in this order:

    tensor.py       `Tensor`: an immutable numpy array with a stable id
    context.py      what is active in this thread: recording tapes, accumulators, listeners, name scopes
    opdef.py        what an op is: a numpy forward, and its gradient rule in the registry
    execute.py      the one op path: convert the inputs, compute with numpy, wrap, record
    record.py       a record: the plain tuple a tape keeps per op call
    where.py        the user's line of code that ran an op (found cheaply, resolved when asked)
    operation.py    `Operation`: the view of a record that a gradient rule reads (`op.x`, `op.z`, ...)
    backprop.py     `backward`: the reverse sweep, and the `Observer` that hears each of its steps
    tape.py         `GradientTape`: the recording window, `watch`, `gradient`
    gradient_args.py  `gradient()`'s arguments checked as TensorFlow checks them
    tape_api.py     the rest of the tape's API: pausing, one-shot answers, a read-only view
    unwatched.py    a shortcut to skip on a first reading: the ops of a backward pass nothing watches

Then, apart from the path of one gradient: variables.py (`Variable`), forward.py (forward mode,
`ForwardAccumulator`), custom_gradient.py. The op tables in minitape/ops/ register into the engine:
when it loads, it imports none of them, nor anything outside it but numpy and TensorFlow's value rules
(values/); a few methods reach the op tables or the teaching aids when called (`tape.jacobian`,
`tape.explain`, `Variable.scatter_nd_update`).
"""

from minitape.engine.backprop import Observer
from minitape.engine.context import state
from minitape.engine.opdef import OPS, OpDef, RegisterGradient, defop, lookup, no_gradient
from minitape.engine.operation import Operation
from minitape.engine.tape import GradientTape
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
