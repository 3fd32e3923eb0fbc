"""`tape.explain(target, sources)`: one test per reason a gradient is None, the text, and the HTML.

Every scenario also asks `tape.gradient` and checks that explain's verdict agrees with it.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.aids.explain import KINDS, Explanation

HERE = os.path.basename(__file__)


def next_line() -> int:
    """The line number after the caller's: where the op under test runs."""
    return sys._getframe(1).f_lineno + 1


def verdict(tape, target, source, name="x"):
    """explain's single reason for `source` (called `name`), after checking it agrees with gradient()."""
    (reason,) = tape.explain(target, {name: source}).reasons
    assert reason.kind in KINDS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # integer sources warn; the warning is tested in the semantics tests
        grad = tape.gradient(target, source)
    assert (grad is not None) == reason.connected, (reason, grad)
    return reason


# ---- connected ---------------------------------------------------------------------------------
def test_connected_names_the_path_and_the_line_of_its_first_op():
    w = mt.Variable(2.0, name="w")
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        line = next_line()
        y = mt.reduce_sum(mt.exp(w * x) + 1.0)
    r = verdict(tape, y, x)
    assert r.kind == "connected" and r.path == ("Mul", "Exp", "AddV2", "Sum")
    assert r.where == (__file__, line) and r.op == "Mul"
    r = verdict(tape, y, w)
    assert r.path == ("ReadVariableOp", "Mul", "Exp", "AddV2", "Sum")
    assert f"{HERE}:{line}" in r.message


def test_the_target_itself_is_connected():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
    r = verdict(tape, x, x)
    assert r.kind == "connected" and r.path == ()


# ---- not watched -------------------------------------------------------------------------------
def test_a_constant_never_watched():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        y = x * x
    r = verdict(tape, y, x)
    assert r.kind == "not_watched"
    assert "tape.watch(x)" in r.fix


def test_a_non_trainable_variable():
    frozen = mt.Variable(3.0, trainable=False, name="frozen")
    with mt.GradientTape(persistent=True) as tape:
        y = frozen * 2.0
    r = verdict(tape, y, frozen)
    assert r.kind == "not_watched" and "trainable=False" in r.message and r.source == "frozen"


def test_watch_accessed_variables_false():
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        y = w * 2.0
    r = verdict(tape, y, w)
    assert r.kind == "not_watched" and "watch_accessed_variables=False" in r.message
    assert "tape.watch(w)" in r.fix


def test_a_variable_replaced_by_a_tensor_gets_the_assign_add_hint():
    x = mt.Variable(2.0)
    results = []
    for _ in range(2):
        with mt.GradientTape(persistent=True) as tape:
            y = x + 1
        results.append(verdict(tape, y, x))
        x = x + 1  # the mistake: this should be x.assign_add(1)
    assert results[0].kind == "connected"
    assert results[1].kind == "not_watched" and "assign_add(1)" in results[1].fix


# ---- not recorded ------------------------------------------------------------------------------
def test_target_computed_before_the_with_block():
    x = mt.constant(3.0)
    y = x * x
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
    assert verdict(tape, y, x).kind == "not_recorded_before_enter"


def test_target_computed_before_watch():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        y = x * x
        tape.watch(x)
    r = verdict(tape, y, x)
    assert r.kind == "not_recorded_before_watch" and "tape.watch(x)" in r.fix


def test_the_op_using_the_source_ran_before_watch():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        doubled = x * 2.0
        tape.watch(x)
        y = doubled * 3.0
    assert verdict(tape, y, x).kind == "not_recorded_before_watch"


def test_target_computed_inside_stop_recording():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
    assert verdict(tape, y, x).kind == "not_recorded_stop_recording"


def test_the_op_using_the_source_ran_inside_stop_recording():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            doubled = x * 2.0
        y = doubled * 3.0
    assert verdict(tape, y, x).kind == "not_recorded_stop_recording"


def test_target_computed_after_the_with_block():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    z = y * 2.0
    r = verdict(tape, z, x)
    assert r.kind == "not_recorded_after_exit" and "ended" in r.message


def test_second_derivative_taken_after_the_outer_block():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = x**3
    dy = inner.gradient(y, x)  # outside the outer block: not recorded
    assert verdict(outer, dy, x).kind == "not_recorded_after_exit"


def test_target_computed_after_gradient_stopped_a_one_shot_tape():
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.gradient(y, x)
        z = y * 2.0
    r = tape.explain(z, x).reasons[0]
    assert r.kind == "not_recorded_after_exit" and "gradient()" in r.message


# ---- cut on the way ----------------------------------------------------------------------------
def test_stop_gradient_names_the_op_and_line():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        line = next_line()
        y = mt.stop_gradient(x * x)
        z = y * 2.0
    for target in (y, z):
        r = verdict(tape, target, x)
        assert r.kind == "stop_gradient" and r.op == "StopGradient" and r.where == (__file__, line)
        assert f"{HERE}:{line}" in r.message


def test_numpy_conversion_says_track_it():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        line = next_line()
        mean = np.mean(y)
        loss = mt.constant(mean) * 2.0
    r = verdict(tape, loss, x)
    assert r.kind == "numpy" and r.where == (__file__, line)
    assert "mt.reduce_mean instead of np.mean" in r.fix and "track it" in r.fix
    # a numpy target is not a tensor at all: explain still answers (gradient() refuses it)
    (r,) = tape.explain(mean, [x]).reasons
    assert r.kind == "numpy" and "numpy.float32" in r.message and r.where == (__file__, line)


def test_dot_numpy_is_a_conversion_too():
    x = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.constant((x * 3.0).numpy() + 1.0)
    assert verdict(tape, y, x).kind == "numpy"


def test_the_latest_dead_end_before_the_target_is_blamed():
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        cut = mt.stop_gradient(y) * 3.0
        converted = mt.constant(np.mean(y)) * 2.0
        as_int = mt.cast(mt.cast(y, mt.int32), mt.float32)
    assert verdict(tape, cut, x).kind == "stop_gradient"
    assert verdict(tape, converted, x).kind == "numpy"
    r = verdict(tape, as_int, x)
    assert r.kind == "integer_dtype" and "StopGradient" in r.message and "numpy conversion" in r.message


def test_a_dead_end_that_cannot_reach_the_target_is_not_blamed():
    x = mt.constant(3.0)
    w = mt.Variable(2.0, name="w")
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mt.stop_gradient(x * x)
        y = w * w  # every input of y is recorded, and none comes from x
    assert verdict(tape, y, x).kind == "no_path"


def test_integer_source():
    n = mt.constant(3)
    with mt.GradientTape(persistent=True) as tape:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tape.watch(n)
        y = n * n
    r = verdict(tape, y, n)
    assert r.kind == "integer_dtype" and "int32" in r.message and "mt.cast" in r.fix


def test_cast_to_integer_on_the_path():
    x = mt.constant(3.7)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        line = next_line()
        rounded = mt.cast(x * 2.0, mt.int32)
        y = mt.cast(rounded, mt.float32) * 1.5
    r = verdict(tape, y, x)
    assert r.kind == "integer_dtype" and r.op == "Cast" and r.where == (__file__, line) and "int32" in r.message


def test_assign_breaks_the_path():
    v = mt.Variable(2.0, name="v")
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape(persistent=True) as tape:
        line = next_line()
        w.assign(v * v)
        y = w * 2.0
    r = verdict(tape, y, v)
    assert r.kind == "assign" and r.op == "AssignVariableOp" and r.where == (__file__, line)
    assert "w.assign" in r.message
    assert verdict(tape, y, w).kind == "connected"  # the read after the assign is a fresh start


def test_assign_to_a_variable_read_earlier_names_it():
    v = mt.Variable(2.0, name="v")
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape(persistent=True) as tape:
        first = w * 1.0  # the tape watches w from this read on
        w.assign(v * v)
        y = w * 2.0 + first
    r = verdict(tape, y, v)
    assert r.kind == "assign" and "w.assign" in r.message


def test_assign_add_breaks_the_path():
    v = mt.Variable(2.0, name="v")
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape(persistent=True) as tape:
        w.assign_add(v * 2.0)
        y = w * 2.0
    r = verdict(tape, y, v)
    assert r.kind == "assign" and "w.assign_add(...)" in r.message


_no_grad_op = mt.defop("ExplainTestFloor", np.floor, None)
_unregistered_op = mt.defop("ExplainTestCube", lambda a: a**3)


def test_op_declared_with_no_gradient():
    x = mt.constant(3.5)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _no_grad_op(x) * 2.0
    r = verdict(tape, y, x)
    assert r.kind == "no_gradient" and r.op == "ExplainTestFloor"


def test_op_with_no_registered_gradient_even_beside_a_good_path():
    x = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        line = next_line()
        y = _unregistered_op(x) + x * x
    (r,) = tape.explain(y, [x]).reasons
    assert r.kind == "no_registered_gradient" and r.op == "ExplainTestCube" and r.where == (__file__, line)
    assert "LookupError" in r.message and "RegisterGradient('ExplainTestCube')" in r.fix
    with pytest.raises(LookupError, match="ExplainTestCube"):
        tape.gradient(y, x)


def test_no_path():
    x = mt.constant(3.0)
    z = mt.constant(4.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        x * x
        y = z * z
    r = verdict(tape, y, x)
    assert r.kind == "no_path" and "does not depend on" in r.message


def test_a_variable_read_only_before_the_block():
    w = mt.Variable(2.0, name="w")
    y = w * 3.0
    with mt.GradientTape(persistent=True) as tape:
        pass
    assert verdict(tape, y, w).kind == "not_recorded_before_enter"


# ---- after gradient(), structures, names -------------------------------------------------------
def test_explain_works_after_a_one_shot_gradient_released_the_tensors():
    @mt.custom_gradient
    def softplus(z):
        e = mt.exp(z)

        def grad(dy):
            return dy * e / (1.0 + e)

        return mt.math.log(1.0 + e), grad

    x = mt.constant(1.0)
    c = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = softplus(x) + mt.stop_gradient(x)
    assert tape.gradient(y, x) is not None
    assert tape.stats().saved_bytes == 0
    reasons = tape.explain(y, [x, c]).reasons
    assert [r.kind for r in reasons] == ["connected", "not_watched"]
    assert reasons[0].path == ("softplus", "AddV2")


def test_nested_sources_keep_their_structure_and_names():
    w = mt.Variable(1.0, name="kernel")
    b = mt.Variable(0.0)
    x = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        y = w * x + b
    explanation = tape.explain(y, {"layer": [w, b], "input": x})
    assert isinstance(explanation, Explanation) and len(explanation) == 3
    assert [r.source for r in explanation] == ["input", "kernel", "layer[1]"]
    assert explanation.verdicts["layer"][0].connected and explanation.verdicts["layer"][1].connected
    assert explanation.verdicts["input"].kind == "not_watched"
    # unnamed: the Python variable the caller bound it to, else the place in the structure
    assert [r.source for r in tape.explain(y, [x, b]).reasons] == ["x", "b"]
    assert [r.source for r in tape.explain(y, [x * 1.0, b.read_value()]).reasons] == ["source 0", "source 1"]
    assert tape.explain(y, x * 1.0).reasons[0].source == "source"
    assert tape.explain(y, [[x * 1.0]]).reasons[0].source == "source 0[0]"


def test_several_targets_connect_if_any_does():
    x = mt.constant(2.0)
    z = mt.constant(5.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        a = z * 2.0
        b = x * 3.0
    assert tape.explain([a, b], x).reasons[0].connected
    assert tape.gradient([a, b], x) is not None
    assert tape.explain({"a": a}, x).reasons[0].kind == "no_path"


def test_a_source_that_is_not_a_tensor_is_an_error():
    with mt.GradientTape() as tape:
        pass
    with pytest.raises(ValueError, match="sources must be tensors"):
        tape.explain(mt.constant(1.0), [3.0])


# ---- how it reads ------------------------------------------------------------------------------
def test_text_has_one_block_per_source_with_the_fix():
    w = mt.Variable(2.0, name="w")
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        y = w * x
    text = str(tape.explain(y, {"w": w, "x": x}))
    assert text == repr(tape.explain(y, {"w": w, "x": x}))
    lines = text.splitlines()
    assert lines[0].startswith("w: connected — the gradient flows through ReadVariableOp → Mul")
    assert lines[1].startswith("x: None — x is a tensor that this tape never watched")
    assert lines[2].startswith("    Fix: call tape.watch(x) inside the with block")
    assert len(lines) == 3


def test_html_escapes_every_user_string():
    evil = "<img src=x onerror=alert(1)>"
    v = mt.Variable(1.0, name=evil, trainable=False)
    code = compile("y = v * 2.0 + x * x\n", "<b onclick=alert(2)>cell.py", "exec")
    x = mt.constant(1.0)
    scope = {"v": v, "x": x}
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        exec(code, scope)
    explanation = tape.explain(scope["y"], {evil: x, "v": v})
    assert evil in str(explanation) and "<b onclick=alert(2)>cell.py:1" in str(explanation)
    page = explanation._repr_html_()
    assert "<img" not in page and "<b " not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;b onclick=alert(2)&gt;cell.py:1" in page
    assert page.count("<tr") == 3  # a header and one row per source
    assert "connected" in page and "None" in page and "#e6f4ea" in page and "#fdecea" in page


def test_every_kind_is_documented():
    assert all(isinstance(meaning, str) and meaning for meaning in KINDS.values())
    assert {"connected", "not_watched", "stop_gradient", "numpy", "integer_dtype", "assign", "no_gradient"} <= set(
        KINDS
    )


def test_explain_inside_the_block_records_nothing_and_changes_nothing():
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        records, timeline = list(tape._records), list(tape._timeline)
        assert tape.explain(y, x).reasons[0].connected
        assert tape._records == records and tape._timeline == timeline
        z = y * 3.0
    assert tape.gradient(z, x).numpy() == 12.0  # the one-shot tape is still usable


def test_a_variable_as_the_target_is_its_own_gradient_and_depends_on_nothing_else():
    v0, v1 = mt.Variable(1.0, name="v0"), mt.Variable(2.0, name="v1")
    with mt.GradientTape(persistent=True) as tape:
        result = v0  # e.g. the branch of an if/else that returned a variable unchanged
    assert [None if g is None else float(g) for g in tape.gradient(result, [v0, v1])] == [1.0, None]
    first, second = tape.explain(result, [v0, v1]).reasons
    assert first.kind == "connected" and "itself" in first.message
    assert second.kind == "no_path" and "the target is the variable v0 itself" in second.message
