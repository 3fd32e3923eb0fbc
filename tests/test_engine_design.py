"""The engine's design promises: one observable backward sweep, per-thread state, no private access outside the core."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape.engine import context
from minitape.engine.observer import Observer
from minitape.widgets import steps

ROOT = Path(__file__).resolve().parent.parent


class Recorder(Observer):
    """Writes down everything the backward sweep says, in order."""

    def __init__(self) -> None:
        self.heard: list = []

    def rule(self, op, upstream):
        self.heard.append(("rule", op.type, [g.numpy().copy() for g in upstream]))

    def contribution(self, op, slot, grad, total):
        self.heard.append(("contribution", op.type, slot, grad.numpy().copy(), total.numpy().copy()))

    def no_gradient(self, op):
        self.heard.append(("no_gradient", op.type))

    def complete(self, grads):
        self.heard.append(("complete", {i: g.numpy().copy() for i, g in grads.items()}))


def test_an_observer_hears_every_rule_in_reverse_tape_order_with_the_upstream_gradients():
    x = mt.constant([0.5, -1.0], dtype=mt.float64)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = mt.sin(x)
        b = a * x
        c = mt.stop_gradient(a) + b
        y = mt.reduce_sum(c)
    recorder = Recorder()
    with_observer = tape.gradient(y, x, observer=recorder)
    plain = tape.gradient(y, x)
    np.testing.assert_allclose(with_observer.numpy(), plain.numpy())
    rules = [h for h in recorder.heard if h[0] in ("rule", "no_gradient")]
    assert [h[1] for h in rules] == ["Sum", "AddV2", "StopGradient", "Mul", "Sin"]
    # upstream of each rule is the complete gradient of its output, as the chain rule gives it
    xv = x.numpy()
    np.testing.assert_allclose(rules[3][2][0], np.ones(2))  # d y / d b
    np.testing.assert_allclose(rules[4][2][0], xv)  # d y / d a through b = a * x only (stop_gradient cuts)
    contributions = [h for h in recorder.heard if h[0] == "contribution"]
    to_x = [h for h in contributions if h[1] in ("Mul", "Sin") and (h[1] == "Sin" or h[2] == 1)]
    np.testing.assert_allclose(to_x[-1][4], plain.numpy())  # the running sum at x ends at the answer
    assert recorder.heard[-1][0] == "complete"
    np.testing.assert_allclose(recorder.heard[-1][1][x.id], plain.numpy())


def test_the_viewer_shows_the_gradients_tape_gradient_gives_even_after_defop_redefines_an_op():
    name = "DesignTestScale"
    scale = mt.defop(name, lambda a: 3.0 * a, lambda op, g: g * 3.0, keep="nothing")
    w = mt.Variable([1.0, 2.0], dtype=mt.float64)
    with mt.GradientTape(persistent=True) as tape:
        y = mt.reduce_sum(scale(w) * w)
    mt.defop(name, lambda a: 100.0 * a)  # a new forward under the same name; the recorded rule stays
    model = steps.build(tape, y, [w])
    expected = tape.gradient(y, w).numpy()
    np.testing.assert_allclose(expected, [6.0, 12.0])
    np.testing.assert_allclose(model.gradients[model.sources[0]], expected)


def test_two_threads_record_only_their_own_ops():
    barrier = threading.Barrier(2)
    results: dict = {}

    def work(name: str, factor: float, wait: bool = True) -> None:
        x = mt.constant(2.0)
        with mt.GradientTape() as tape, mt.autodiff.ForwardAccumulator(x, mt.constant(1.0)) as acc:
            tape.watch(x)
            if wait:
                barrier.wait()
            y = x * x * factor
            if wait:
                barrier.wait()  # both threads have run their ops before either reads its tape
            results[name] = ([op.type for op in tape.records], float(acc.jvp(y)))
        results[name] += (float(tape.gradient(y, x)),)

    work("alone", 1.0, wait=False)
    threads = [threading.Thread(target=work, args=("a", 1.0)), threading.Thread(target=work, args=("b", 10.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recorded_alone = results["alone"][0]  # x * x * factor, and the accumulator's tangent ops on top
    assert recorded_alone[:2] == ["Mul", "Mul"]
    assert results["a"] == (recorded_alone, 4.0, 4.0)
    assert results["b"] == (recorded_alone, 40.0, 40.0)


def test_numerics_check_and_name_scope_stay_in_their_thread():
    seen: dict = {}
    ready, done = threading.Event(), threading.Event()

    def other() -> None:
        with mt.name_scope("other_thread"):
            mt.debugging.enable_check_numerics()
            ready.set()
            done.wait(5)
            mt.debugging.disable_check_numerics()

    thread = threading.Thread(target=other)
    thread.start()
    ready.wait(5)
    try:
        x = mt.constant([0.0])
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.math.log(x)  # -inf here is a value, not an error: the check is on in the other thread only
        seen["value"] = y.numpy()[0]
        seen["scope"] = tape.records[0].scope
        seen["check"] = context.state.check_numerics
    finally:
        done.set()
        thread.join()
    assert seen == {"value": -np.inf, "scope": "", "check": False}


OUTSIDE_THE_CORE = ["widgets", "minitape/keras", "notebooks/lesson_tools"]
# an engine object's private attribute (an object's own, `self._x`, is its business), or a private engine name
PRIVATE = re.compile(
    r"(?<!self)\.(_records|_watched|_inputs|_outputs|_value|_array|_variables|_escapes|_timeline|_refs|_where)\b"
    r"|__slots__|from minitape[\w.]* import (\(?\s*|[^#\n]*,\s*)_[a-z]\w*"
)


@pytest.mark.parametrize("folder", OUTSIDE_THE_CORE)
def test_code_outside_the_engine_core_uses_only_its_public_api(folder):
    offences = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PRIVATE.search(line):
                offences.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offences, "private engine access outside the core:\n" + "\n".join(offences)


def test_the_reading_path_in_readme_is_true_and_short():
    table = (ROOT / "README.md").read_text().split("## Reading the engine", 1)[1].split("Then the rules", 1)[0]
    rows = re.findall(r"^\| \d \| `(minitape/\w+\.py)` \| (\d+) \|", table, flags=re.M)
    assert len(rows) >= 5
    total = 0
    for path, stated in rows:
        lines = sum(1 for line in (ROOT / path).read_text().splitlines() if line.strip())
        assert lines == int(stated), f"README says {path} has {stated} non-blank lines; it has {lines}"
        total += lines
    assert total <= 400
    assert f"**{total}**" in table
