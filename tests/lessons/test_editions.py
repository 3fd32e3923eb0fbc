"""One source, two languages: a lesson's cells carry both texts, and each edition takes its own, never a mix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks" / "lesson_sources"))

import nb  # noqa: E402

CELLS = [nb.md("## Summary", ko="## 정리"), nb.code("x = 1"), nb.solution('check("0.1", x)')]


def test_each_edition_takes_its_own_text_and_keeps_the_code() -> None:
    english, korean = nb.notebook(CELLS), nb.notebook(CELLS, lang="ko")
    assert english.cells[0].source == "## Summary" and korean.cells[0].source == "## 정리"
    assert [c.source for c in english.cells if c.cell_type == "code"] == [
        c.source for c in korean.cells if c.cell_type == "code"
    ]
    assert "(try first!)" in english.cells[2].source and "먼저 직접 풀어 보세요" in korean.cells[2].source
    for notebook in (english, korean):  # the Korean text is not left in a saved cell's metadata
        assert all(nb.KOREAN not in c.metadata for c in notebook.cells)
    assert CELLS[0].metadata[nb.KOREAN] == "## 정리", "building an edition does not change the source cells"


def test_a_cell_without_its_korean_text_stops_the_korean_edition() -> None:
    with pytest.raises(ValueError, match="has no Korean text"):
        nb.notebook([nb.md("Only English")], lang="ko")
    assert nb.notebook([nb.md("Only English")]).cells[0].source == "Only English"
