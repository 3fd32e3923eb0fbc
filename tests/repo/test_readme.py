"""README's first example runs and prints what its comments say; its two commands are the scripts, as written."""

import contextlib
import io
import re
import subprocess
from pathlib import Path

import pytest

import minitape as mt

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


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


def test_the_two_commands_are_the_two_scripts_with_the_options_readme_names():
    """tests/test_scripts.py and tests/test_lessons_browser.py run lessons.sh as README says."""
    section = README.read_text().split("## Two commands\n", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in section.splitlines() if line.startswith("    bash ")]
    assert commands == ["bash scripts/lessons.sh", "bash scripts/test.sh"]
    for command in commands:
        parsed = subprocess.run(["bash", "-n", command.split()[1]], cwd=ROOT, capture_output=True, text=True)
        assert parsed.returncode == 0, parsed.stderr
    usage = subprocess.run(["bash", "scripts/lessons.sh", "--help"], cwd=ROOT, capture_output=True, text=True).stdout
    for option in ("--reset 03", "--setup-only", "--no-browser"):
        assert f"bash scripts/lessons.sh {option}" in usage and option.split()[0] in section
