"""The checkers of the lesson "Autodiff by hand": each accepts the solution and names the typical mistakes."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "notebooks"))

from lesson_tools import check  # noqa: E402

DY_DZ = 1 - math.tanh(-0.5) ** 2


def verdict(capsys: pytest.CaptureFixture, key: str, answer: object) -> str:
    check(key, answer)
    return capsys.readouterr().out


def test_neuron_by_pencil(capsys: pytest.CaptureFixture) -> None:
    assert "correct!" in verdict(capsys, "2.1", [DY_DZ * -1.5, DY_DZ])
    assert "without quotes" in verdict(capsys, "2.1", [str(DY_DZ * -1.5), str(DY_DZ)])
    assert "1 - tanh(z)²" in verdict(capsys, "2.1", [-1.5 * math.tanh(-0.5), math.tanh(-0.5)])
    assert "dy/dx" in verdict(capsys, "2.1", [DY_DZ * 0.4, DY_DZ])
    assert "list of two numbers" in verdict(capsys, "2.1", DY_DZ)


def test_division_rule(capsys: pytest.CaptureFixture) -> None:
    assert "correct!" in verdict(capsys, "2.2", lambda a, b: (a / b, (1 / b, -a / b**2)))
    assert "wrong sign" in verdict(capsys, "2.2", lambda a, b: (a / b, (1 / b, a / b**2)))
    assert "1/b" in verdict(capsys, "2.2", lambda a, b: (a / b, (b, -a / b**2)))
    assert "a pair" in verdict(capsys, "2.2", lambda a, b: a / b)
    assert "function of two numbers" in verdict(capsys, "2.2", 0.5)


class Dual:
    def __init__(self, value: float, tangent: float = 0.0) -> None:
        self.value, self.tangent = value, tangent


def dual_class(tangent_rule):  # a Dual subclass whose division uses `tangent_rule(a, da, b, db)`
    class WithDivision(Dual):
        def __truediv__(self, other: Dual) -> Dual:
            return WithDivision(
                self.value / other.value, tangent_rule(self.value, self.tangent, other.value, other.tangent)
            )

    return WithDivision


def test_dual_division(capsys: pytest.CaptureFixture) -> None:
    assert "correct!" in verdict(capsys, "2.3", dual_class(lambda a, da, b, db: (da * b - a * db) / b**2))
    assert "a + where" in verdict(capsys, "2.3", dual_class(lambda a, da, b, db: (da * b + a * db) / b**2))
    assert "tangent" in verdict(capsys, "2.3", dual_class(lambda a, da, b, db: da / db if db else 0.0))
    assert "returned None" in verdict(capsys, "2.3", type("Lazy", (Dual,), {"__truediv__": lambda s, o: None}))
    assert "the class" in verdict(capsys, "2.3", Dual(1.0, 1.0))
