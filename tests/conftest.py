"""Fixtures shared by several test files."""

import pytest
from threadpoolctl import threadpool_limits

import minitape as mt


@pytest.fixture
def keras_session():
    """Layer names restart at 'dense', 'conv2d', ...; a fixed seed; one BLAS thread (the CPUs are shared)."""
    mt.keras.backend.clear_session()
    mt.random.set_seed(0)
    with threadpool_limits(limits=1):
        yield


# Debian's Chromium, headless, for the viewer's browser tests (driven by Python playwright)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test file (each test opens its own pages)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need `pip install playwright`")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
