"""The step model of the tape viewer: nodes, edges and the numbers of each forward and backward step."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitape as mt
from minitape.widgets import examples, scene, steps


def contributions(model, node_id):
    return [float(c.grad) for c in model.contributions_to(node_id)]


def by_label(model, label):
    return next(n for n in model.nodes if n.label == label)


def test_fan_out_sums_at_w1_and_gradient_at_w2():
    tape, f, (w1, w2) = examples.fan_out()
    model = steps.build(tape, f)
    n1, n2 = by_label(model, "w1:0"), by_label(model, "w2:0")
    assert (n1.kind, n2.kind) == ("variable", "variable")
    # w1 is read twice; both reads fold into its node, where the backward pass sums them
    assert sorted(contributions(model, n1.id)) == [6.0, 30.0]
    assert float(model.contributions_to(n1.id)[-1].total) == 36.0
    assert [float(t) for t in model.contributions_to(n1.id)[-1].terms] == [6.0, 30.0]
    assert contributions(model, n2.id) == [10.0]
    assert float(model.gradients[n1.id]) == 36.0 and float(model.gradients[n2.id]) == 10.0
    pow_step = next(e for e in model.events if e.kind == "backward" and model.node(e.node).label == "Pow")
    assert any("sum at w1:0 so far (2 terms): 6 + 30 = 36" in line for line in pow_step.text)
    assert any("3 × (∂(aᵇ)/∂a = b·aᵇ⁻¹ = 10) = 30" in line for line in pow_step.text)
    engine = tape.gradient(f, [w1, w2])
    assert [float(g) for g in engine] == [36.0, 10.0]


def test_events_are_ordered_forward_in_tape_order_then_backward_in_reverse():
    tape, f, _ = examples.fan_out()
    model = steps.build(tape, f)
    kinds = [e.kind for e in model.events]
    assert kinds[0] == "start" and kinds[-1] == "result"
    seed = kinds.index("seed")
    assert set(kinds[1:seed]) == {"forward"} and set(kinds[seed + 1 : -1]) == {"backward"}
    forward = [model.node(e.node).record for e in model.events if e.kind == "forward"]
    backward = [model.node(e.node).record for e in model.events if e.kind == "backward"]
    assert forward == sorted(forward) and backward == sorted(backward, reverse=True)
    assert [float(e.value) for e in model.events if e.kind == "forward"] == [25.0, 75.0, 10.0, 30.0, 105.0]
    assert model.target == [next(n.id for n in model.nodes if n.is_target)]
    # node ids follow tape order, so they are the same on every run
    again = steps.build(*examples.fan_out()[:2])
    assert [n.id for n in again.nodes] == [n.id for n in model.nodes]


def test_stop_gradient_and_unwatched_constant_are_none_paths_never_zero():
    x = mt.constant(2.0)
    c = mt.constant(4.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c + mt.stop_gradient(x * 3.0)
    model = steps.build(tape, y, [x])
    nones = [c for e in model.events for c in e.contributions if c.grad is None]
    reasons = " | ".join(str(c.reason) for c in nones)
    assert "StopGradient has no gradient" in reasons
    assert "unwatched constant" in reasons
    constant = next(n for n in model.nodes if n.kind == "constant" and n.value is not None and float(n.value) == 4.0)
    assert [c.grad for c in model.contributions_to(constant.id)] == [None]
    stop = next(n for n in model.nodes if n.label == "StopGradient")
    cut = next(e for e in model.events if e.kind == "backward" and e.node == stop.id)
    assert [c.grad for c in cut.contributions] == [None]
    assert float(model.gradients[model.sources[0]]) == float(tape.gradient(y, x)) == 4.0


def test_source_that_only_reaches_the_target_through_stop_gradient_is_none_with_its_reason():
    x = mt.constant(2.0)
    z = mt.constant(1.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * x + mt.stop_gradient(z * 2.0)
    model = steps.build(tape, y, [x, z])
    gx, gz = (model.gradients[s] for s in model.sources)
    assert float(gx) == 4.0 and gz is None
    assert re.search("stop_?gradient", str(model.reasons[model.sources[1]]), flags=re.I)
    assert tape.gradient(y, z) is None


def test_integer_source_and_missing_gradient_are_explained():
    x = mt.constant(2.0)
    k = mt.constant(3)
    twice = mt.defop("TwiceWithoutGradient", lambda a: a * 2)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = twice(x) * x + mt.cast(k, mt.float32) * x
    model = steps.build(tape, y, [x, k])
    assert model.gradients[model.sources[1]] is None
    assert "int32" in str(model.reasons[model.sources[1]])
    missing = [c for e in model.events for c in e.contributions if c.grad is None and "LookupError" in str(c.reason)]
    assert missing and 'RegisterGradient("TwiceWithoutGradient")' in str(missing[0].reason)
    assert "raises LookupError" in " ".join(model.events[-1].text)


def test_values_not_kept_are_replayed():
    def run():
        x = mt.constant(2.0)
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = mt.exp(x * 3.0)  # Exp keeps only its output: the 6.0 between them survives only in Mul's inputs
        return tape, y, x

    tape, y, x = run()
    model = steps.build(tape, y, [x])
    mul = next(n for n in model.nodes if n.label == "Mul")
    assert float(mul.value) == pytest.approx(6.0)
    assert float(model.gradients[model.sources[0]]) == pytest.approx(float(tape.gradient(y, x)))


def test_nan_is_flagged_where_it_first_appears_in_each_pass():
    x = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.log(x - 2.0) * 1.0 + x
    model = steps.build(tape, y, [x])
    flagged = [(e.kind, model.node(e.node).label) for e in model.events if e.nonfinite]
    assert flagged == [("forward", "Log"), ("backward", "Log")]
    assert np.isinf(model.node(next(n.id for n in model.nodes if n.label == "Log")).value)


def test_mlp_training_step_matches_the_engine_and_groups_by_scope():
    tape, loss, variables = examples.mlp_step()
    model = steps.build(tape, loss, variables)
    engine = tape.gradient(loss, variables)
    for source, g in zip(model.sources, engine):
        np.testing.assert_allclose(model.gradients[source], g.numpy(), rtol=1e-12)
    scopes = {n.scope for n in model.nodes if n.record is not None}
    assert scopes == {"dense", "dense_1", "loss"}
    assert by_label(model, "dense/kernel:0").scope == "dense"


def test_nested_tape_marks_the_recorded_gradient_computation():
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape(persistent=True) as outer:
        with mt.GradientTape() as inner:
            y = w * w * w
        dy = inner.gradient(y, w)
    model = steps.build(outer, dy, [w])
    kinds = {n.kind for n in model.nodes}
    assert {"op", "gradop"} <= kinds
    assert {n.backward_of for n in model.nodes if n.kind == "gradop"} == {"Mul", "sum"}
    assert float(model.gradients[model.sources[0]]) == float(outer.gradient(dy, w)) == 18.0


def test_custom_gradient_uses_its_own_rule():
    @mt.custom_gradient
    def clipped(x):
        def grad(dy):
            return dy * 0.5

        return x * 1.0, grad

    x = mt.constant(4.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = clipped(x) * x
    model = steps.build(tape, y, [x])
    assert float(model.gradients[model.sources[0]]) == float(tape.gradient(y, x)) == 6.0


def test_clear_errors():
    w = mt.Variable(1.0)
    with mt.GradientTape() as tape:
        y = w * 2.0
    tape.gradient(y, w)
    with pytest.raises(RuntimeError, match="persistent=True"):
        steps.build(tape, y)
    with mt.GradientTape(persistent=True) as tape:
        y = w * 2.0
    unrecorded = steps.build(tape, mt.constant(1.0) * 2.0)  # drawn apart, not an error: the view says why
    assert unrecorded.node(unrecorded.target[0]).label == "target (not recorded)"
    assert all(g is None for g in unrecorded.gradients.values())
    with pytest.raises(TypeError, match="target must be a tensor"):
        steps.build(tape, 3.0)


def test_fmt_is_short_and_stable():
    assert steps.fmt(np.float32(36.0)) == "36"
    assert steps.fmt(np.array([1.0, 2.5])) == "[1, 2.5]"
    assert steps.fmt(np.arange(10.0)) == "float64[10] in [0, 9]"
    assert steps.fmt(np.array([np.nan, 1.0, 2.0, 3.0, 4.0])) == "float64[5] in [1, 4] has NaN/inf"
    assert steps.fmt(None) == "None"


def test_view_of_a_one_shot_tape_made_before_gradient_keeps_working():
    w = mt.Variable(3.0, name="w")
    with mt.GradientTape() as tape:
        y = w * w
    model = steps.build(tape, y)
    assert float(tape.gradient(y, w)) == 6.0  # the tape releases its records now; the model has what it needs
    assert float(model.gradients[model.sources[0]]) == 6.0
    assert float(by_label(model, "Mul").value) == 9.0


def test_keras_mlp_step_matches_the_engine():
    tape, loss, variables = examples.keras_mlp_step()
    model = steps.build(tape, loss, variables)
    for source, g in zip(model.sources, tape.gradient(loss, variables)):
        np.testing.assert_allclose(model.gradients[source], g.numpy(), rtol=1e-6)
    assert {n.scope for n in model.nodes if n.label == "MatMul"} == {"sequential/dense", "sequential/dense_1"}


def cut_reasons(model) -> list:
    return [str(e.cut).split(":")[0] for e in model.edges if e.cut]


def test_every_kind_of_cut_is_drawn_as_a_dashed_edge_with_its_reason():
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as escaped:
        y = x * x
        z = mt.constant(np.sin(y.numpy()))  # numpy escape: the target is not recorded
    model = steps.build(escaped, z, [x])
    assert cut_reasons(model) == ["numpy escape"] and model.gradients[model.sources[0]] is None
    with mt.GradientTape(persistent=True) as truncated:
        z = mt.cast(mt.cast(x * 3.0, mt.int32), mt.float32) * 2.0  # int dtype: the tape stops following
    assert cut_reasons(steps.build(truncated, z, [x])) == ["int dtype"]
    with mt.GradientTape(persistent=True) as stopped:
        z = mt.stop_gradient(x * x) + x
    model = steps.build(stopped, z, [x])
    assert cut_reasons(model) == ["StopGradient has no gradient (e.g. stop_gradient)"]
    assert float(model.gradients[model.sources[0]]) == float(stopped.gradient(z, x)) == 1.0
    mt.defop("UnregisteredForViewer", lambda a: a * 2.0)
    op = mt.engine.opdef.OPS["UnregisteredForViewer"]
    with mt.GradientTape(persistent=True) as unregistered:
        z = op(x) + x
    model = steps.build(unregistered, z, [x])
    assert cut_reasons(model) == ["no gradient registered for UnregisteredForViewer"]
    c = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as unwatched:
        z = x * 2.0 + mt.exp(c)
    model = steps.build(unwatched, z, [x, c])
    assert model.gradients[model.sources[1]] is None


def test_a_constant_made_from_a_python_number_shows_its_value():
    z = mt.Variable(0.5, name="z")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.exp(z) + 1.0
    model = steps.build(tape, y, [z])
    constant = next(n for n in model.nodes if n.kind == "constant")
    assert float(constant.value) == 1.0


def test_a_forward_accumulator_is_viewed_as_one_jvp_per_op():
    x = mt.Variable(2.0, name="x", dtype=mt.float64)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(1.0, dtype=mt.float64)) as acc:
        y = mt.sin(x) * x
    model = steps.build(acc, y)
    assert model.mode == "forward"
    forward = [e for e in model.events if e.kind == "forward"]
    assert [model.node(e.node).label for e in forward] == ["Sin", "Mul"]
    assert float(forward[0].tangent) == pytest.approx(np.cos(2.0))
    assert float(forward[1].tangent) == pytest.approx(np.cos(2.0) * 2.0 + np.sin(2.0)) == float(acc.jvp(y))
    assert not any(e.kind == "backward" for e in model.events)
    # the details card calls them tangents and shows each node's final tangent (it said "gradient (end): None")
    drawn = scene.scene(model)
    assert drawn["flows"] == "tangent"
    sin_node = next(e.node for e in forward)
    assert drawn["info"][sin_node]["grad"] == scene.small_text(np.asarray(forward[0].tangent))
    with mt.GradientTape() as tape:
        z = x * x
    assert scene.scene(steps.build(tape, z, [x]))["flows"] == "gradient"


def test_the_first_step_counts_the_recorded_ops_in_words_that_agree():
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape() as tape:
        y = x * 3.0
    assert steps.build(tape, y, [x]).events[0].text[0] == "The tape recorded 1 op. The inputs:"  # was "1 ops"


def test_a_source_no_op_read_is_named_in_the_result_not_numbered():
    x, unused = mt.Variable(2.0, name="x"), mt.Variable(1.0, name="unused")
    with mt.GradientTape() as tape:
        y = x * x
    result = steps.build(tape, y, [x, unused]).events[-1].text
    assert result[1] == "d target / d x:0 = 4"
    assert result[2].startswith("d target / d unused:0 = None  (unused was never read")  # was "d #95"


def test_a_constant_used_many_times_is_drawn_once_per_use():
    x = mt.Variable([1.0, 2.0], name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(5):
            y = y * 1.01  # one cached constant tensor, five uses
    model = steps.build(tape, y, [x])
    constants = [n for n in model.nodes if n.kind == "constant"]
    assert len(constants) == 5
    assert all(sum(e.src == c.id for e in model.edges) == 1 for c in constants)
