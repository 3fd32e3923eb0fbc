"""Readable at first sight, in a real browser, on the graphs of lessons 06, 08 and 10 (saved pages, no server).

Every check is a relation, never a pixel size: node text at least 11 CSS px, the step's node inside the
graph box, the details card clear of the nodes it must not hide, cut labels clear of every node.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape.widgets import TapeView

pytest.importorskip("playwright.sync_api", reason="the browser tests need `pip install playwright`")
pytestmark = pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or shutil.which("dot") is None,
    reason="needs Debian's chromium and graphviz (`apt-get install chromium graphviz`)",
)
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


# ---- the lessons' graphs (as the lessons record them) -------------------------------------------------
def lesson_06():
    """06 `stop_gradient`: x reaches the target by two paths, one cut."""
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.stop_gradient(x * 3.0) * x
    return TapeView(tape, y, [x])


def lesson_08():
    """08: one training step of a small CNN on a batch of 4 8×8 images, layers in name scopes."""
    keras = mt.keras
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            keras.layers.MaxPool2D(),
            keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
            keras.layers.MaxPool2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    rng = np.random.default_rng(0)
    images = rng.random((4, 8, 8, 1)).astype("float32")
    labels = rng.integers(0, 10, size=4)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model(images[:1])
    with mt.GradientTape(persistent=True) as tape:
        loss = loss_fn(labels, model(images, training=True))
    return TapeView(tape, loss, model.trainable_variables)


def lesson_10():
    """10: an RNN over 4 steps, each in its name scope, with the gradient cut after step 2."""
    rng = np.random.default_rng(10)
    xs = mt.constant(rng.normal(size=(4, 1, 2)), dtype=mt.float32)
    W = mt.Variable(rng.normal(0.0, 0.5, (2, 3)), dtype=mt.float32, name="W")
    U = mt.Variable(rng.normal(0.0, 0.5, (3, 3)), dtype=mt.float32, name="U")
    b = mt.Variable(mt.zeros(3), name="b")
    target = mt.constant([[0.5, -0.5, 0.25]])
    with mt.GradientTape(persistent=True) as tape:
        h = mt.zeros((1, 3))
        for t in range(1, 5):
            with mt.name_scope(f"step_{t}"):
                h = mt.tanh(xs[t - 1] @ W + h @ U + b)
            if t == 2:
                h = mt.stop_gradient(h)
        loss = mt.reduce_sum((h - target) ** 2)
    return TapeView(tape, loss, [W, U, b])


LESSONS = {"06": lesson_06, "08": lesson_08, "10": lesson_10}


def open_page(browser, view, tmp_path: Path, name: str, width: int = 1280):
    path = view.save_html(tmp_path / f"{name}.html")
    page = browser.new_page(viewport={"width": width, "height": 800})
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector(".tv-graph svg g.node")
    return page, errors


MEASURE = """() => {
    const graph = document.querySelector('.tv-graph').getBoundingClientRect();
    const rect = (e) => { const r = e.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    const svg = document.querySelector('.tv-graph svg');
    const scale = svg.getScreenCTM().a;  // CSS px per SVG unit
    const sizes = [...document.querySelectorAll('.tv g.node text')]
        .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    const active = document.querySelector('.tv g.node.active');
    return { graph: rect(document.querySelector('.tv-graph')), sizes,
             active: active ? rect(active) : null, activeId: active ? active.id : null,
             nodes: [...document.querySelectorAll('.tv g.node')].map((g) => [g.id, rect(g)]) };
}"""


RECT = """(e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
}"""


def inside(r: dict, box: dict) -> bool:
    return (
        r["left"] >= box["left"] - 1
        and r["right"] <= box["right"] + 1
        and r["top"] >= box["top"] - 1
        and (r["bottom"] <= box["bottom"] + 1)
    )


def overlaps(a: dict, b: dict) -> bool:
    return min(a["right"], b["right"]) > max(a["left"], b["left"]) and min(a["bottom"], b["bottom"]) > max(
        a["top"], b["top"]
    )


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    print(f"\nscreenshot: {ARTIFACTS / name}")


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_opens_readable_with_the_step_in_view_and_the_card_clear_of_it(browser, tmp_path, lesson):
    view = LESSONS[lesson]()
    page, errors = open_page(browser, view, tmp_path, f"lesson{lesson}")
    m = page.evaluate(MEASURE)
    assert min(m["sizes"]) >= 11 - 0.01, f"node text below 11 CSS px at first sight: {min(m['sizes']):.1f}"
    # step 0 has no node of its own: the graph opens at the first op the animation reaches
    first = next(e["node"] for e in view.scene["events"] if e["node"])
    box = page.locator(f"#n-{first}").evaluate(RECT)
    assert inside(box, m["graph"]), f"the first op {first} is not in the graph box at first sight"
    shot(page, f"readable_lesson{lesson}_open.png")
    # step on: each step's node stays in the graph box, and text stays readable
    last = view.n_steps - 1
    for k in sorted({1, 2, last // 3, last // 2, (2 * last) // 3, last - 1}):
        page.evaluate(f"() => window.tapeview.show({k})")
        m = page.evaluate(MEASURE)
        if m["active"] is not None:
            assert inside(m["active"], m["graph"]), (k, m["activeId"])
    # zooming keeps the step in view (it pans to the step rather than from it)
    page.evaluate(f"() => window.tapeview.show({last // 2})")
    for button in ("zoom in", "zoom in", "zoom out", "zoom in"):
        page.click(f"button[aria-label='{button}']")
        m = page.evaluate(MEASURE)
        if m["active"] is not None:
            assert inside(m["active"], m["graph"]), (button, m["activeId"])
    # click a variable at a backward step: the card covers neither it nor the step's node
    backward = next(k for k, e in enumerate(view.scene["events"]) if e["kind"] == "backward")
    page.evaluate(f"() => window.tapeview.show({backward})")
    page.locator("#n-var0").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    for k in (backward, backward + 1, last):
        page.evaluate(f"() => window.tapeview.show({k})")
        m = page.evaluate(MEASURE)
        card = page.locator(".tv-details").evaluate(RECT)
        guarded = {"n-var0", m["activeId"]}
        covered = [i for i, r in m["nodes"] if i in guarded and overlaps(card, r)]
        assert not covered, f"step {k}: the details card covers {covered}"
    shot(page, f"readable_lesson{lesson}_card.png")
    assert errors == []


@pytest.mark.parametrize("lesson", ["06", "10"])
def test_cut_labels_fit_beside_their_edge_and_the_card_has_the_whole_reason(browser, tmp_path, lesson):
    view = LESSONS[lesson]()
    cuts = view.scene["cuts"]
    assert cuts, "the lesson's graph has a cut edge"
    page, errors = open_page(browser, view, tmp_path, f"cuts{lesson}")
    labels = page.evaluate(
        """() => [...document.querySelectorAll('.tv-cut-labels text')].map((t) => {
            const r = t.getBoundingClientRect();
            return [t.textContent, {left: r.left, top: r.top, right: r.right, bottom: r.bottom}]; })"""
    )
    nodes = page.evaluate(MEASURE)["nodes"]
    assert len(labels) == len(cuts)
    for text, box in labels:
        hit = [i for i, r in nodes if overlaps(box, r)]
        assert not hit, f"the cut label {text!r} lies over {hit}"
        reason = next(full for full, short in cuts.values() if short == text)
        kept = re.sub(r"^cut: ", "", text).removesuffix("…")
        # whole, or shortened where a word ends
        assert reason == kept or (reason.startswith(kept) and reason[len(kept)] in " ,.:;"), (text, reason)
    # the whole reason is in the card of the node the cut edge leads into
    edge = next(iter(cuts))
    dst = view.model.edges[int(edge[1:])].dst
    page.locator(f"#n-{dst}").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    assert cuts[edge][0] in page.inner_text(".tv-details")
    shot(page, f"readable_cuts{lesson}.png")
    assert errors == []


CARD_ROWS = (
    "() => [...document.querySelectorAll('.tv-details tr')].map((r) => [r.cells[0].innerText, r.cells[1].innerText])"
)


def test_the_targets_card_shows_the_seed_and_a_constant_its_value(browser, tmp_path):
    view = lesson_06()
    page, errors = open_page(browser, view, tmp_path, "seed")
    target = view.model.target[0]
    page.evaluate(f"() => window.tapeview.show({view.n_steps - 1})")
    page.locator(f"#n-{target}").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    rows = dict(page.evaluate(CARD_ROWS))
    assert rows["gradient (end)"] == "1" and rows["gradient now"] == "1"  # the seed, as the node says "grad 1"
    constant = next(n.id for n in view.model.nodes if n.kind == "constant")
    page.locator(f"#n-{constant}").evaluate("(g) => g.dispatchEvent(new Event('click'))")
    rows = dict(page.evaluate(CARD_ROWS))
    assert rows.get("value") == "3", rows  # the 3.0 of x * 3.0
    drawn = page.locator(f"#n-{constant}").text_content()
    assert "value 3" in drawn and "value None" not in drawn
    assert errors == []


ENGLISH_UI = re.compile(
    r"\b(step|play|pause|reset|zoom|fit|follow|speed|close|gradient|value|shape|node|scope|Forward|Backward|Click|Selected|seed|input|output)\b",
    re.I,
)


def test_a_korean_view_shows_no_english_word_in_the_browser(browser, tmp_path):
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.stop_gradient(x * 3.0) * x
    view = TapeView(tape, y, [x], lang="ko")
    page, errors = open_page(browser, view, tmp_path, "korean")
    for k in range(view.n_steps):
        page.evaluate(f"() => window.tapeview.show({k})")
        page.locator("#n-var0").evaluate("(g) => g.dispatchEvent(new Event('click'))")
        shown = page.evaluate(
            """() => [document.querySelector('.tv').innerText,
                ...[...document.querySelectorAll('.tv [aria-label], .tv [title]')].map((e) =>
                    (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('title') || '')),
                ...[...document.querySelectorAll('.tv svg text, .tv svg title')].map((t) => t.textContent),
            ].join('\\n')"""
        )
        left = set(m.group(0) for m in ENGLISH_UI.finditer(shown.replace("stop_gradient", "")))
        assert not left, f"step {k}: English words left in the Korean view: {left}"
    assert "그래디언트" in page.inner_text(".tv")
    shot(page, "readable_korean.png")
    assert errors == []
