"""The Korean edition's feedback: check() speaks Korean in notebooks/ko/ (or after set_language("ko")), with the
same numbers and the same slips named as in English, and the plots get a font that has Hangul."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from io import BytesIO
from pathlib import Path

import pytest

import minitape as mt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lesson_tools import exercise_keys, language, verdict  # noqa: E402
from lesson_tools.language import ENVIRONMENT, _detect, set_language, use_korean_font  # noqa: E402
from test_exercise_slips import CASES, Case  # noqa: E402

HANGUL = re.compile(r"[\uac00-\ud7a3]")
CODE = re.compile(r"`[^`]*`|\S*[()\[\]._=*'\"/²ᵀ]\S*")  # code, names and formulas stay as they are in English
ENGLISH_SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}\b")  # four English words in a row


@pytest.fixture
def korean() -> Iterator[None]:
    set_language("ko")
    yield
    set_language("en")


@pytest.fixture(autouse=True)
def _fresh_keras() -> None:
    mt.keras.backend.clear_session()


def _english_left(text: str) -> str | None:
    found = ENGLISH_SENTENCE.search(CODE.sub(" ", text))
    return found.group(0) if found else None


@pytest.mark.parametrize(("key", "slip", "build", "words"), CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_every_verdict_has_its_korean_text(korean: None, key: str, slip: str, build: Callable[[], Case], words: str):
    answer, evidence = build()
    said = verdict(key, answer, **evidence)
    assert said.startswith(f"연습 {key}: "), said
    assert HANGUL.search(said.split(": ", 1)[1]), said
    assert _english_left(said) is None, f"English left in: {said}"


def test_the_korean_verdict_says_the_same_numbers(korean: None) -> None:
    """A slip named in Korean carries the student's own number, as the English sentence does."""
    said = verdict("0.1", 8.0)
    assert "여러분의 도함수 값: 8" in said and "힌트: " in said, said
    assert verdict("0.1", "7").count("'7'") == 1


def test_a_forgotten_watch_names_the_exercises_tape_in_korean(korean: None) -> None:
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            inner.watch(x)
            g = x[0] ** 3 + x[0] * x[1] ** 2
        grad = inner.gradient(g, x)
    said = verdict("5.2", outer.jacobian(grad, x), tape=outer, target=grad, sources=x)
    assert "x을(를) 감시하는 것을 잊었습니다" in said and "outer.watch(x)" in said, said


def test_a_name_opening_a_korean_sentence_keeps_its_case(korean: None) -> None:
    """English capitalises a sentence's first word; Korean has no capitals, and g is the student's g, not G."""
    assert "아직 아닙니다. g의 본문: 아직 `...`입니다." in verdict("11.3", ...)
    assert "아직 아닙니다. f의 본문" in verdict("7.1", ...)
    set_language("en")
    assert "not yet. The body of g is still `...`" in verdict("11.3", ...)


def test_every_hint_is_written_in_both_languages(korean: None) -> None:
    for key in exercise_keys():
        hint = verdict(key, ...).split("힌트: ", 1)[1]
        assert HANGUL.search(hint), f"{key}: {hint}"


def test_the_language_follows_the_folder_and_the_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    (tmp_path / "ko").mkdir()
    monkeypatch.chdir(tmp_path / "ko")
    assert _detect() == "ko"
    monkeypatch.chdir(tmp_path)
    assert _detect() == "en"
    monkeypatch.setenv(ENVIRONMENT, "ko")
    assert _detect() == "ko"
    assert language() == "en"  # this test process started in the repository: English


def test_set_language_refuses_an_unknown_language() -> None:
    with pytest.raises(ValueError, match=r"set_language takes one of \('en', 'ko'\), not 'kr'"):
        set_language("kr")


def test_the_korean_font_covers_hangul() -> None:
    """matplotlib's default DejaVu Sans has no Hangul (boxes); the font registered for Korean plots has every glyph."""
    pytest.importorskip("koreanize_matplotlib")
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    try:
        assert use_korean_font() == "NanumGothic"
        path = font_manager.findfont("NanumGothic", fallback_to_default=False)
        font = FT2Font(path)
        text = "그래디언트 소실과 폭주, 측정한 오차, 매개변수 수"
        missing = [c for c in text if c != " " and font.get_char_index(ord(c)) == 0]
        assert not missing, missing
        default = FT2Font(font_manager.findfont("DejaVu Sans"))
        assert default.get_char_index(ord("그")) == 0  # why a Korean plot needs the font at all
    finally:
        set_language("en")
        import matplotlib

        matplotlib.rcdefaults()


def test_a_korean_plot_draws_every_glyph(caplog: pytest.LogCaptureFixture) -> None:
    """Hangul in the labels and a log axis (its ticks are maths, 10⁻², with a U+2212 minus): no glyph is missing."""
    pytest.importorskip("koreanize_matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    try:
        use_korean_font()
        fig, ax = pyplot.subplots()
        ax.loglog([1e-5, 1e-1], [1e-3, 1e2], label="측정한 오차: ε·|f|/h")
        ax.set_xlabel("간격 h")
        ax.set_title("스텝마다 도착하는 그래디언트")
        ax.legend()
        with caplog.at_level("WARNING"):
            fig.savefig(BytesIO(), format="png")
        pyplot.close(fig)
        missing = [r.getMessage() for r in caplog.records if "glyph" in r.getMessage().lower()]
        assert not missing, missing
    finally:
        matplotlib.rcdefaults()


def _plot_words() -> str:
    """Every Korean text the lessons' code cells hand to say(...): the words their plots draw."""
    import ast

    words = []
    for source in (Path(__file__).resolve().parents[2] / "notebooks" / "lesson_sources").glob("l[0-9][0-9]_*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "say(" in node.value:
                for call in ast.walk(ast.parse(textwrap.dedent(node.value))):
                    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "say":
                        words.append(ast.literal_eval(call.args[1]))
    return "".join(words)


def test_the_fonts_cover_every_word_the_korean_plots_draw() -> None:
    """Each character of a Korean plot's labels is in DejaVu Sans or, for Hangul, in NanumGothic: no box."""
    pytest.importorskip("koreanize_matplotlib")
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    try:
        use_korean_font()
        fonts = [
            FT2Font(font_manager.findfont(name, fallback_to_default=False)) for name in ("DejaVu Sans", "NanumGothic")
        ]
        text = _plot_words()
        assert HANGUL.search(text), "the lessons' plots have Korean words"
        missing = sorted({c for c in text if not c.isspace() and all(f.get_char_index(ord(c)) == 0 for f in fonts)})
        assert not missing, missing
    finally:
        set_language("en")
        import matplotlib

        matplotlib.rcdefaults()
