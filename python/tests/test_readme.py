"""The README's Python example runs as printed (it ends with its own assert_allclose)."""

import os
import re

from enigma_testing import open_runtime

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def test_readme_python_example(tmp_path):
    text = open(README, encoding="utf-8").read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 5)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the README's Python section has no python example"
    open_runtime("auto").close()
    # from a file, as a user would run it, so the tracer can read the kernel's source
    path = tmp_path / "readme_example.py"
    path.write_text(blocks[0])
    ns = {"__name__": "__readme__"}
    exec(compile(blocks[0], str(path), "exec"), ns)
    assert "kernel void naive_gemm(" in ns["compiled"].source
