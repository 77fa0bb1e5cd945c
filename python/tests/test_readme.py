"""The README's Python examples run as printed: the DSL example (it ends with its own
assert_allclose), the MLX-style metal_kernel example (checked here against NumPy), and the
torch example where PyTorch with a GPU is there (the lent GPU machine)."""

import os
import re

import numpy as np
import pytest

from enigma_testing import open_runtime

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def _blocks():
    text = open(README, encoding="utf-8").read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 5)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 3, "the README's Python section lost an example"
    return blocks


def _run(block, tmp_path, name):
    # from a file, as a user would run it, so the tracer can read the kernel's source
    path = tmp_path / (name + ".py")
    path.write_text(block)
    ns = {"__name__": "__readme__"}
    exec(compile(block, str(path), "exec"), ns)
    return ns


def test_readme_dsl_example(tmp_path):
    block = next(b for b in _blocks() if "@enigma.kernel" in b)
    open_runtime("auto").close()
    ns = _run(block, tmp_path, "readme_dsl")
    assert "kernel void naive_gemm(" in ns["compiled"].source


def test_readme_metal_kernel_example(tmp_path):
    block = next(b for b in _blocks() if "enigma.metal_kernel(" in b)
    ns = _run(block, tmp_path, "readme_mlx")
    a, b = ns["a"], ns["b"]
    np.testing.assert_allclose(b.astype(np.float64), np.exp(a.astype(np.float64)),
                               rtol=2e-3, atol=2e-3)


def test_readme_torch_example(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("the torch example runs on a GPU")
    block = next(b for b in _blocks() if "import numpy as np, torch, enigma" in b)
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    ns = {}
    # the example's inputs, kept before the kernel writes y in place
    prefix = block[:block.index("rt.launch(")]
    ns = _run(prefix, tmp_path, "readme_torch_inputs")
    x0, y0 = ns["x"].cpu().double(), ns["y"].cpu().double()
    exec(compile(block[block.index("rt.launch("):], "readme_torch", "exec"), ns)
    torch.cuda.synchronize()
    assert torch.allclose(ns["y"].cpu().double(), 2 * x0 + y0, rtol=1e-6, atol=1e-6)
