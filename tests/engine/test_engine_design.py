"""The engine's design promises: one observable backward sweep, per-thread state, no private access outside the core."""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape.aids import numerics
from minitape.engine.backprop import Observer
from minitape.widgets import steps

ROOT = Path(__file__).resolve().parents[2]


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
        seen["check"] = numerics.is_on()
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


def engine_imports(path: Path) -> set[Path]:
    """The engine files `path` imports when it loads (imports inside functions run later, on demand: left out)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        for imp in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(imp, ast.ImportFrom) and imp.module and imp.module.startswith("minitape.engine"):
                names = [imp.module + "." + a.name for a in imp.names] + [imp.module]
                found |= {p for p in map(module_file, names) if p is not None and p.name != "__init__.py"}
    return found


def module_file(module: str) -> Path | None:
    path = ROOT / (module.replace(".", "/") + ".py")
    return path if path.exists() else None


def reading_path() -> set[Path]:
    """The import closure of the tape module within minitape/engine/: what a student opens to follow one op."""
    seen, todo = set(), [ROOT / "minitape/engine/tape.py"]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(engine_imports(path))
    return seen


def non_blank_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def reading_table() -> str:
    return (ROOT / "README.md").read_text().split("## Reading the engine", 1)[1].split("Along the way", 1)[0]


def test_the_reading_path_in_readme_is_the_tapes_import_closure_and_short():
    table = reading_table()
    rows = re.findall(r"^\| \d+ \| `(minitape/engine/\w+\.py)` \| (\d+) \|", table, flags=re.M)
    listed = {ROOT / path: int(lines) for path, lines in rows}
    assert set(listed) == reading_path(), "README's reading table must list exactly the tape's import closure"
    for path, stated in listed.items():
        assert non_blank_lines(path) == stated, f"README says {path.name} has {stated} non-blank lines"
    total = sum(listed.values())
    assert len(listed) <= 16 and total <= 1500
    assert f"**{total}**" in table


def test_the_engine_imports_nothing_outside_it_but_numpy_and_tensorflows_value_rules():
    allowed = ("minitape.engine", "minitape.values")
    for path in sorted((ROOT / "minitape/engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("minitape"):
                called_later = node.col_offset > 0  # inside a method: tape.explain, tape.jacobian, scatter updates
                lazy = called_later and node.module.startswith(("minitape.aids", "minitape.ops"))
                assert node.module.startswith(allowed) or lazy, f"{path.name} imports {node.module}"


def test_the_reading_order_is_the_same_in_readme_and_the_engines_docstring():
    docstring = (ROOT / "minitape/engine/__init__.py").read_text()
    order_in_docstring = re.findall(r"^    (\w+\.py) ", docstring, flags=re.M)
    table = reading_table()
    order_in_readme = re.findall(r"^\| \d+ \| `minitape/engine/(\w+\.py)`", table, flags=re.M)
    assert order_in_docstring == order_in_readme
