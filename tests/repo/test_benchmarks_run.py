"""The benchmarks run end to end (smoke tests: they time nothing and assert no speed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_engine.py"
NUMBER = r"\d+\.\d+"


def test_bench_engine_quick_prints_the_three_sections_with_numbers():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert out.startswith("machine: ")
    sections = re.split(r"\n(?=\([abc]\) )", out)
    assert [s[:3] for s in sections[1:]] == ["(a)", "(b)", "(c)"], out
    chain, mlp, long_chain = sections[1:]
    # every engine row carries its figure (or says the engine is missing), for minitape and the numpy floor always
    for section in (chain, mlp):
        assert re.search(rf"^  minitape +{NUMBER} ", section, re.M), section
        assert re.search(rf"^  numpy +{NUMBER} ", section, re.M), section
        assert re.search(rf"^  mt.function +{NUMBER} ", section, re.M), section
        for peer in ("torch", "autograd"):
            assert re.search(rf"^  {peer} +({NUMBER} |not installed)", section, re.M), section
    assert "gradients agree across engines: yes" in chain
    verdict = rf"((met|not met) \({NUMBER}x\)|torch not installed)"  # the bench extra may be missing
    assert re.search(rf"target, minitape per op at or below torch's: {verdict}", chain), chain
    assert re.search(rf"target, minitape within 1.5x of torch: {verdict}", mlp), mlp
    issue_21 = r" \(the readable engine, issue 21\): "
    assert re.search(rf"target, minitape per op within 2x of torch's{issue_21}{verdict}", chain), chain
    assert re.search(rf"target, minitape within 1.3x of torch{issue_21}{verdict}", mlp), mlp
    assert re.search(rf"target, minitape within 3x of the numpy floor: (met|not met) \({NUMBER}x\)", mlp), mlp
    assert re.search(rf"target, mt.function within 1.5x of the numpy floor: (met|not met) \({NUMBER}x\)", mlp), mlp
    first = rf"first-step loss \(same init\): minitape {NUMBER}, mt.function {NUMBER}, numpy {NUMBER}"
    assert re.search(first, mlp), mlp
    rows = re.findall(rf"^ +([\d,]+) +{NUMBER} +{NUMBER}", long_chain, re.M)
    assert rows == ["1,000", "5,000", "10,000"], long_chain
    assert re.search(rf"per-op time at 10,000 / at 1,000 +{NUMBER}", long_chain), long_chain
    assert re.search(rf"within 1.2x of that at 1,000: (met|not met) \({NUMBER}x\)", long_chain), long_chain
    assert re.search(r"memory a recorded op keeps until gradient\(\): [\d,]+ bytes", long_chain), long_chain


def test_bench_features_prints_the_split_and_the_floor_engine():
    script = SCRIPT.with_name("bench_features.py")
    result = subprocess.run(
        [sys.executable, str(script), "--rounds", "1", "--mlp"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    difference = rf"-?{NUMBER}"  # one round on a busy machine can make a difference of two timings negative
    for row in ("minitape forward + backward", "floor engine, with the teaching facts"):
        assert re.search(rf"^  {re.escape(row)} +{NUMBER}", out, re.M), out
    assert re.search(rf"^  the backward sweep and its rules +{difference}", out, re.M), out
    assert re.search(rf"minitape over the floor engine with them +{difference} +\({NUMBER}x\)", out), out
    mlp = out[out.index("the MLP step of bench_engine.py by statement") :]
    for row in ("sparse cross-entropy", "tape.gradient (11 records)", "numpy floor, the whole step"):
        assert re.search(rf"^  {re.escape(row)} +{NUMBER}$", mlp, re.M), mlp
    # each op type of the step whose rule the sweep runs, with how many of it a step has
    rules = dict(re.findall(rf"^    (\w+) +{NUMBER}  x (\d+)$", mlp, re.M))
    assert rules == {"Mean": "1", "SparseSoftmaxCrossEntropyWithLogits": "1", "AddV2": "2", "ReadVariableOp": "4",
                     "MatMul": "2", "Relu": "1"}, mlp  # fmt: skip
    phases = rf"PyTorch's step \(fastest of \d+\), us: forward {NUMBER}, backward {NUMBER}, update {NUMBER}"
    assert re.search(phases, mlp) or "PyTorch's step: not installed" in mlp, mlp


def _floor_engine():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import floor_engine
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return floor_engine


def test_floor_engine_differentiates_the_chain_as_numpy_by_hand_does():
    import numpy as np

    engine = _floor_engine()
    x0 = np.linspace(-2, 2, 16)
    expected, y = np.ones(16), x0
    for _ in range(50):  # d/dx of (sin(x) * 1.01) repeated 50 times, by the chain rule
        expected, y = expected * np.cos(y) * 1.01, np.sin(y) * 1.01
    for facts in (True, False):
        engine.FACTS = facts
        np.testing.assert_allclose(engine.chain(x0, 100), expected, rtol=1e-12)
    engine.FACTS = True


def test_floor_engine_records_the_teaching_facts_and_takes_a_second_derivative():
    import numpy as np

    engine = _floor_engine()
    x = engine.Tensor(np.array([0.3, 1.2]))
    with engine.Tape() as outer:
        outer.watch(x)
        with engine.Tape() as inner:
            inner.watch(x)
            y = engine.sin(x)
        dy = inner.gradient(y, x)  # outer is recording: the rule runs on tensors and is recorded
    np.testing.assert_allclose(dy.value, np.cos([0.3, 1.2]))
    np.testing.assert_allclose(outer.gradient(dy, x).value, -np.sin([0.3, 1.2]))
    record = inner.records[0]
    assert (record.type, record.shapes, record.dtypes) == ("Sin", ((2,), (2,)), (np.dtype(float),) * 2)
    assert [ref() for ref in record.refs] == [x, y]
    assert record.where[0].co_name == "test_floor_engine_records_the_teaching_facts_and_takes_a_second_derivative"


def test_bench_training_quick_prints_every_table_with_figures_and_targets():
    script = SCRIPT.with_name("bench_training.py")
    result = subprocess.run(
        [sys.executable, str(script), "--quick", "--threads", "1"], capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert out.startswith("machine: ") and "load average before: " in out
    sections = re.split(r"\n(?=\([abc]\) )", out)
    assert [s[:3] for s in sections[1:]] == ["(a)", "(b)", "(c)"], out
    cifar, digits, pipeline = sections[1:]
    row = rf" +{NUMBER} +{NUMBER} +[\d,]+ +({NUMBER}|n/a) +({NUMBER}x|n/a)"
    for name in ("minitape custom train_step", "minitape fit"):
        assert re.search(rf"^  {name}{row}$", cifar, re.M), cifar
    for name in (r"minitape fit \(lesson 08 cell\)", "minitape hand-written loop"):
        assert re.search(rf"^  {name}{row}$", digits, re.M), digits
    assert re.search(rf"^  minitape mt.data{row}$", pipeline, re.M), pipeline
    for section in (cifar, digits):  # PyTorch comes with the bench extra; without it the table says so
        assert re.search(rf"^  PyTorch eager({row}$| +not installed)", section, re.M), section
    assert re.search(rf"the course's 5 epochs \(7,815 steps\) with the custom train_step: {NUMBER} minutes", cifar)
    assert re.search(rf"target, fit no slower than the custom loop: (met|not met) \({NUMBER}x", cifar), cifar
