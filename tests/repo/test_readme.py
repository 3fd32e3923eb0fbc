"""README's first example runs and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

import pytest

import minitape as mt

README = Path(__file__).resolve().parents[2] / "README.md"


def test_first_example_prints_what_its_comments_say():
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = out.getvalue().splitlines()
    promised = [line.split("# ", 1)[1] for line in code.splitlines() if line.startswith("print(")]
    assert len(printed) == len(promised) == 3
    for line, comment in zip(printed, promised):
        assert comment.startswith(line), (line, comment)


def test_missing_tensorflow_modules_say_so():
    with pytest.raises(AttributeError, match="minitape has no tf.saved_model"):
        mt.saved_model  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        mt.nonsense  # noqa: B018
