"""What a clicked node's details say about a value: every number when few, a summary when many.

The words live with every other word of the viewer, in `formatting` (this name stays for callers).
"""

from __future__ import annotations

from .formatting import FIRST, FULL_LIMIT, describe

__all__ = ["FIRST", "FULL_LIMIT", "describe"]
