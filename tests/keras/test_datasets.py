"""mt.keras.datasets.mnist / fashion_mnist and keras.utils.get_file: Keras's cache folder, hashes, downloads.

Downloads are served by a local HTTP server on 127.0.0.1 (started and stopped here); the real origins are never
contacted. KERAS_HOME points the cache at a temporary folder, as Keras allows.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import io
import pickle
import tarfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

import minitape as mt
from minitape.keras.datasets import cifar10, fashion_mnist, mnist


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    return tmp_path / "keras"


@pytest.fixture
def server(tmp_path):
    """(folder it serves, its URL), on 127.0.0.1, stopped after the test."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _fake_mnist() -> tuple[bytes, dict]:
    rng = np.random.default_rng(0)
    arrays = {
        "x_train": rng.integers(0, 256, (6, 28, 28), dtype=np.uint8),
        "y_train": np.arange(6, dtype=np.uint8),
        "x_test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
        "y_test": np.array([7, 1], np.uint8),
    }
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue(), arrays


def test_mnist_downloads_once_checks_the_hash_then_reads_the_cache(home, server, monkeypatch):
    root, url = server
    content, arrays = _fake_mnist()
    (root / "mnist.npz").write_bytes(content)
    monkeypatch.setattr(mnist, "ORIGIN", url)
    monkeypatch.setattr(mnist, "SHA256", hashlib.sha256(content).hexdigest())
    (x_train, y_train), (x_test, y_test) = mt.keras.datasets.mnist.load_data()
    assert (home / "datasets" / "mnist.npz").read_bytes() == content
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    assert y_train.tolist() == list(range(6)) and y_test.tolist() == [7, 1] and x_test.dtype == np.uint8
    (root / "mnist.npz").unlink()  # the server no longer has it: the cache answers
    assert mt.keras.datasets.mnist.load_data()[1][1].tolist() == [7, 1]


def test_a_cached_file_with_the_wrong_hash_is_fetched_again(home, server, monkeypatch):
    root, url = server
    content, _ = _fake_mnist()
    (root / "mnist.npz").write_bytes(content)
    (home / "datasets").mkdir(parents=True)
    (home / "datasets" / "mnist.npz").write_bytes(b"half a download")
    monkeypatch.setattr(mnist, "ORIGIN", url)
    monkeypatch.setattr(mnist, "SHA256", hashlib.sha256(content).hexdigest())
    mt.keras.datasets.mnist.load_data()
    assert (home / "datasets" / "mnist.npz").read_bytes() == content


def test_without_a_network_the_error_says_where_to_put_the_file_and_what_needs_none(home):
    origin = "http://127.0.0.1:9/mnist.npz"  # the discard port: nothing listens there
    with pytest.raises(ConnectionError) as info:
        mt.keras.utils.get_file("mnist.npz", origin=origin)
    message = str(info.value)
    assert "could not download mnist.npz from http://127.0.0.1:9/mnist.npz" in message
    assert str(home / "datasets" / "mnist.npz") in message and "mt.keras.datasets.digits.load_data()" in message
    assert not list((home / "datasets").iterdir())  # no partial file left behind


def test_fashion_mnist_reads_keras_idx_files(home):
    folder = home / "datasets" / "fashion-mnist"
    folder.mkdir(parents=True)
    for split, n in (("train", 3), ("t10k", 2)):
        labels = np.arange(n, dtype=np.uint8) + 4
        images = np.full((n, 28, 28), 9, np.uint8)
        (folder / f"{split}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(b"\0" * 8 + labels.tobytes()))
        (folder / f"{split}-images-idx3-ubyte.gz").write_bytes(gzip.compress(b"\0" * 16 + images.tobytes()))
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    assert x_train.shape == (3, 28, 28) and x_test.shape == (2, 28, 28) and int(x_train.max()) == 9
    assert y_train.tolist() == [4, 5, 6] and y_test.tolist() == [4, 5]


def test_get_file_extracts_an_archive_and_refuses_a_wrong_hash(home, server):
    root, url = server
    with zipfile.ZipFile(root / "data.zip", "w") as archive:
        archive.writestr("table.csv", "a,b\n1,2\n")
    folder = Path(mt.keras.utils.get_file("data.zip", origin=url + "data.zip", extract=True))
    assert (folder / "table.csv").read_text() == "a,b\n1,2\n"
    with pytest.raises(ValueError, match="does not have the expected hash"):
        mt.keras.utils.get_file("other.zip", origin=url + "data.zip", file_hash="0" * 64)
    assert not (home / "datasets" / "other.zip").exists()


def test_other_keras_datasets_say_what_to_use():
    with pytest.raises(AttributeError, match="no tf.keras.datasets.imdb: only mnist, fashion_mnist, cifar10"):
        mt.keras.datasets.imdb.load_data()


def test_cifar10_unpacks_the_python_archive_into_channels_last_images(home, server, monkeypatch):
    root, url = server
    rng = np.random.default_rng(0)
    images = {
        name: rng.integers(0, 256, (2, 3072), dtype=np.uint8)
        for name in [*map("data_batch_{}".format, range(1, 6)), "test_batch"]
    }
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for k, (name, data) in enumerate(images.items()):
            payload = pickle.dumps({b"data": data, b"labels": [k, 9 - k]}, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    (root / "cifar.tar.gz").write_bytes(archive.getvalue())
    monkeypatch.setattr(cifar10, "ORIGIN", url + "cifar.tar.gz")
    monkeypatch.setattr(cifar10, "SHA256", hashlib.sha256(archive.getvalue()).hexdigest())
    (x_train, y_train), (x_test, y_test) = mt.keras.datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_test.shape == (2, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train[:4, 0].tolist() == [0, 9, 1, 8] and y_test[:, 0].tolist() == [5, 4]
    first = images["data_batch_1"][0].reshape(3, 32, 32)  # the archive stores each image's red plane first
    np.testing.assert_array_equal(x_train[0], first.transpose(1, 2, 0))
    assert (home / "datasets" / "cifar-10-batches-py" / "test_batch").exists()
