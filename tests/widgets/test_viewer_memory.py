"""Nothing leaks: a closed TapeView is freed with its scene and values, and re-running a cell keeps one view."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

pytest.importorskip("anywidget")
import minitape as mt  # noqa: E402
from minitape.widgets import TapeView  # noqa: E402

N = 50_000  # elements of each tensor: a view holds several of them, so its size stands out of the noise


def big_tape():
    x = mt.Variable(np.linspace(0.0, 1.0, N), name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.reduce_sum(mt.sin(x) * x)
    return tape, y, x


def test_a_closed_view_is_freed_with_its_scene_and_values():
    tape, y, x = big_tape()
    view = TapeView(tape, y, x)
    refs = [weakref.ref(view), weakref.ref(view.model)]
    refs += [weakref.ref(n.value) for n in view.model.nodes if isinstance(n.value, np.ndarray) and n.value.size == N]
    assert len(refs) > 3
    view.close()
    del view
    gc.collect()
    assert [r() is None for r in refs] == [True] * len(refs)  # anywidget kept views with Path _esm/_css forever


def retained() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_fifty_runs_of_the_same_cell_grow_the_kernel_by_less_than_one_view():
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    tape, y, x = big_tape()
    shell.user_ns.update(tape=tape, y=y, x=x, TapeView=TapeView)
    cell = "view = TapeView(tape, y, x)\ndisplay(view)"
    tracemalloc.start()
    try:
        shell.run_cell("TapeView(tape, y, x).close()", cell_id="warm-up")  # imports and caches settle
        shell.run_cell(cell, cell_id="cell-1")
        base = retained()
        extra = TapeView(tape, y, x)  # one more view, held: what one view costs
        extra._repr_mimebundle_()
        one_view = retained() - base
        extra.close()
        del extra
        base = retained()
        for _ in range(50):  # a student re-running the cell (IPython keeps each run's pictures in its history)
            shell.run_cell(cell, cell_id="cell-1")
        grown = retained() - base
    finally:
        tracemalloc.stop()
        shell.user_ns["view"].close()
        InteractiveShell.clear_instance()
    assert one_view > 3 * N * 8, one_view  # the measure sees a view: its values alone are this big
    print(f"\nfifty runs of one cell: {grown:,} bytes kept; one view: {one_view:,} bytes")
    assert grown <= one_view, f"fifty runs of one cell kept {grown:,} bytes; one view is {one_view:,}"
