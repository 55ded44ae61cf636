"""Every ```python block of docs/python.md runs (blocks in order, one namespace per file)."""

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_doc_has_examples():
    assert len(blocks()) >= 6


def test_the_examples_run(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for index, code in enumerate(blocks()):
        exec(compile(code, f"docs/python.md, python block {index + 1}", "exec"), namespace)
