"""Fixtures shared by several test files."""

import shutil
import subprocess
from pathlib import Path

import numpy as np
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


def _glorot_start(model, seed):
    """Glorot-uniform kernels and zero biases from a seeded numpy generator: the ported guides run a model from the
    same weights in TensorFlow and in minitape, so that their printed losses can be compared number for number."""
    rng = np.random.default_rng(seed)
    weights = []
    for w in model.get_weights():
        if w.ndim >= 2:
            fan_in, fan_out = np.prod(w.shape[:-1]), np.prod(w.shape[:-2]) * w.shape[-1]
            limit = np.sqrt(6 / (fan_in + fan_out))
            weights.append(rng.uniform(-limit, limit, w.shape).astype("float32"))
        else:
            weights.append(np.zeros(w.shape, "float32"))
    model.set_weights(weights)


@pytest.fixture
def same_start():
    """`same_start(model, seed)`: set a built model's weights as the TensorFlow runs of the ported guides did."""
    return _glorot_start


def _digits_as_mnist() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """`keras.datasets.mnist.load_data()` without a download: the 8x8 digits bundled with minitape (1437 training,
    360 test images), each pixel blown up to 3x3 and padded to MNIST's 28x28, grey levels 0..16 as MNIST's 0..255
    uint8; labels uint8 0..9."""
    (x_train, y_train), (x_test, y_test) = mt.keras.datasets.digits.load_data()

    def pixels(x):
        big = np.pad(np.kron(x, np.ones((3, 3), x.dtype)), ((0, 0), (2, 2), (2, 2)))
        return np.round(big.astype(np.float64) * 255 / 16).astype(np.uint8)

    return (pixels(x_train), y_train), (pixels(x_test), y_test)


@pytest.fixture
def digits_as_mnist():
    """`digits_as_mnist()` stands where a ported guide calls `keras.datasets.mnist.load_data()`."""
    return _digits_as_mnist


ROOT = Path(__file__).resolve().parent.parent


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """This working tree's tracked and new files, committed in a fresh repository (a clone, uncommitted edits too)."""
    copy = tmp_path / "minitape"
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=test", "-c", "user.email=test@example.org", "commit", "-q", "-m", "copy")
    return copy
