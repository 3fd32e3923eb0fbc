"""Any name displays: control characters, NUL, lone surrogates, direction marks and very long names in variables,
name scopes and custom_gradient functions are shown escaped or shortened, and break nothing: not the DOT source,
the SVG, the notebook bundle, the saved page, the widget's JSON or the browser.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import minitape as mt
from minitape.widgets import TapeView, formatting

LONG = "L" * 20_000  # Graphviz refuses strings over 16,384 characters
HOSTILE = {
    "control": "ctl\x01name",
    "nul": "nul\x00name",
    "surrogate": "sur\ud800rogate",
    "rtl": "rtl\u202eevil\u200f",
    "long": LONG,
    "newline": "two\nlines\r\tand tab",
}


def hostile_tape():
    variables = [mt.Variable(float(k + 1), name=name) for k, name in enumerate(HOSTILE.values())]

    def fn(x):
        def grad(dy):
            return dy * 2.0

        return x * 1.0, grad

    fn.__name__ = "cg\x03\ud800fn"  # the op a custom_gradient records is named after its function
    twice = mt.custom_gradient(fn)
    with mt.GradientTape(persistent=True) as tape:
        with mt.name_scope("scope\x02\u202e" + "S" * 17_000):
            y = twice(sum(v * v for v in variables))
    return tape, y, variables


def test_clean_escapes_and_shortens():
    assert formatting.clean("a\x01b") == "a\\x01b"
    assert formatting.clean("a\x00b") == "a\\x00b"
    assert formatting.clean("a\ud800b") == "a\\ud800b"
    assert formatting.clean("a\u202eb\u200f") == "a\\u202eb\\u200f"
    plain = "plain name/kernel:0 ü 한글 👩‍💻"
    assert formatting.clean(plain) == plain  # nothing else changes
    long = formatting.clean(LONG)
    assert len(long) <= formatting.NAME_LIMIT and long.endswith("…")
    for text in HOSTILE.values():
        cleaned = formatting.clean(text)
        cleaned.encode("utf-8")  # no lone surrogate left
        assert not re.search(r"[\x00-\x1f\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]", cleaned)


@pytest.fixture(scope="module")
def view():
    tape, y, variables = hostile_tape()
    return TapeView(tape, y, variables)


def svg_texts(svg: str) -> str:
    return " ".join(t.text or "" for t in ET.fromstring(svg).iter() if t.text)


def test_every_step_draws_as_parseable_svg_with_the_names_escaped(view):
    for step in range(view.n_steps):
        ET.fromstring(view.to_svg(step))  # a bare XML ParseError before
    text = svg_texts(view.to_svg(-1))
    assert "ctl\\x01name" in text and "nul\\x00name" in text and "sur\\ud800rogate" in text
    assert "rtl\\u202eevil" in text and "cg\\x03\\ud800fn" in text and "…" in text  # the long name shortened
    assert "\x01" not in text and "\u202e" not in text


def test_the_notebook_bundle_and_the_widget_state_survive(view):
    data, _ = view._repr_mimebundle_()
    ET.fromstring(data["image/svg+xml"])
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    # the kernel sends widget state as UTF-8 JSON: a lone surrogate would raise UnicodeEncodeError here
    json.dumps(view.get_state(), ensure_ascii=False).encode("utf-8")
    assert max(len(label) for label in re.findall(r">([^<]*)</text>", data["image/svg+xml"])) < 200


def test_save_html_writes_a_page_whose_svg_parses(view, tmp_path):
    path = view.save_html(tmp_path / "hostile.html", title="title\x01\ud800")
    page = path.read_text(encoding="utf-8")  # valid UTF-8 throughout
    data = json.loads(re.search(r'id="tapeview-data">(.*?)</script>', page, flags=re.S).group(1))
    ET.fromstring(data["svg"])
    assert "title\\x01\\ud800" in page and "\x01" not in page


@pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or shutil.which("dot") is None, reason="needs Debian's chromium and graphviz"
)
def test_the_browser_shows_the_escaped_names(view, tmp_path, browser):
    path = view.save_html(tmp_path / "hostile.html")
    page = browser.new_page()
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector(".tv-graph svg g.node")
    page.evaluate(f"() => window.tapeview.show({view.n_steps - 1})")
    var = next(n.id for n in view.model.nodes if n.label.startswith("ctl"))
    assert "ctl\\x01name" in page.locator(f"#n-{var}").text_content()
    page.locator(f"#n-{var}").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    assert "ctl\\x01name" in page.inner_text(".tv-details")
    long = next(n.id for n in view.model.nodes if n.label.startswith("LLL"))
    page.locator(f"#n-{long}").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    assert len(page.inner_text(".tv-details")) < 4000  # shortened, not 20,000 characters
    assert errors == []
