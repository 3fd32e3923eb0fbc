"""The language the lessons' feedback speaks: English, or Korean for the Korean edition (notebooks/ko/).

A notebook's kernel starts in the notebook's folder, so a lesson opened from notebooks/ko/ speaks Korean
without a line of code that differs from the English lesson. `set_language("ko")` (or the environment
variable MINITAPE_LESSONS_LANGUAGE=ko) chooses it explicitly. Each message is written in both languages
where it is said, `say(english, korean)`: one sentence, its two texts side by side, the same numbers in both.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

LANGUAGES = ("en", "ko")
ENVIRONMENT = "MINITAPE_LESSONS_LANGUAGE"
KOREAN_FOLDER = "ko"  # the Korean edition's lessons live in notebooks/ko/


def _detect() -> str:
    chosen = os.environ.get(ENVIRONMENT, "")
    if chosen in LANGUAGES:
        return chosen
    return "ko" if Path.cwd().name == KOREAN_FOLDER else "en"


_current = {"language": _detect()}


def language() -> str:
    """ "en" or "ko": the language check() and the plots use now."""
    return _current["language"]


def say(en: str, ko: str) -> str:
    """The text of a message in the current language."""
    return ko if _current["language"] == "ko" else en


def set_language(lang: str) -> None:
    """Make check()'s feedback, the plots' font and the tape viewer speak `lang` ("en" or "ko")."""
    if lang not in LANGUAGES:
        raise ValueError(f"set_language takes one of {LANGUAGES}, not {lang!r}")
    _current["language"] = lang
    if lang == "ko":
        use_korean_font()
    viewer_language(lang)


def viewer_language(lang: str) -> None:
    """Tell the tape viewer which language to speak: the one place the lessons set it."""
    from minitape import widgets

    widgets.set_language(lang)


def use_korean_font() -> str | None:
    """Register the NanumGothic font files that koreanize-matplotlib ships, and let matplotlib draw Hangul with it.

    matplotlib's own DejaVu Sans has no Hangul, so a Korean title would show as empty boxes. The package is only
    looked up, not imported (importing it sets the font too, with a deprecation warning of its own). Returns the
    font's family name, or None when matplotlib or the font package is not installed (nothing to plot then).
    """
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("matplotlib") is None:
        return None
    from matplotlib import font_manager, pyplot

    fonts = Path(next(iter(spec.submodule_search_locations))) / "fonts"
    for path in sorted(fonts.glob("NanumGothic*.ttf")):
        font_manager.fontManager.addfont(str(path))
    # DejaVu Sans (matplotlib's own) first: NanumGothic has no U+2212 minus, which the maths of a log axis's ticks
    # (10⁻²) is drawn with in the first family's font. Hangul comes from NanumGothic, by matplotlib's per-glyph
    # fallback along the list.
    pyplot.rcParams["font.family"] = ["DejaVu Sans", "NanumGothic"]
    return "NanumGothic"
