"""The engine benchmark runs end to end (a smoke test: it times nothing and asserts no speed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_engine.py"
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
        for peer in ("torch", "autograd"):
            assert re.search(rf"^  {peer} +({NUMBER} |not installed)", section, re.M), section
    assert "gradients agree across engines: yes" in chain
    verdict = rf"((met|not met) \({NUMBER}x\)|torch not installed)"  # the bench extra may be missing
    assert re.search(rf"target, minitape per op at or below torch's: {verdict}", chain), chain
    assert re.search(rf"target, minitape within 1.5x of torch: {verdict}", mlp), mlp
    assert re.search(rf"target, minitape within 3x of the numpy floor: (met|not met) \({NUMBER}x\)", mlp), mlp
    assert re.search(rf"first-step loss \(same init\): minitape {NUMBER}, numpy {NUMBER}", mlp), mlp
    rows = re.findall(rf"^ +([\d,]+) +{NUMBER} +{NUMBER}", long_chain, re.M)
    assert rows == ["1,000", "5,000", "10,000"], long_chain
    assert re.search(rf"per-op time at 10,000 / at 1,000 +{NUMBER}", long_chain), long_chain
    assert re.search(rf"within 1.2x of that at 1,000: (met|not met) \({NUMBER}x\)", long_chain), long_chain
    assert re.search(r"memory a recorded op keeps until gradient\(\): [\d,]+ bytes", long_chain), long_chain
