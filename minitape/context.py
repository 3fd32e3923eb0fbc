"""What is active right now: the tapes that record, the forward accumulators, and debugging switches.

Every op consults this module once per call, so it stays a few plain module-level lists.
"""

from __future__ import annotations

from typing import Any

recording_tapes: list[Any] = []  # GradientTapes whose `with` block is open and not paused
accumulators: list[Any] = []  # ForwardAccumulators whose `with` block is open
variable_watchers: list[list[Any]] = []  # custom_gradient collects the variables its function reads
check_numerics = False  # set by mt.debugging.enable_check_numerics()
name_scopes: list[str] = []  # mt.name_scope blocks, outermost first; records remember the path
backward_of: Any = None  # the Operation whose gradient is being computed, for error messages
