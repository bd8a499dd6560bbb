"""mcp_resume_guard stands alone: importing it loads the model and the `mcp` package, never the
simulators (SimPy, numpy, networkx, matplotlib) nor `simulations`, so `pip install -e '.[guard]'`
is all a deployment needs."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_support import REQUIRED

ROOT = Path(__file__).resolve().parent.parent
SIMULATOR_MODULES = ("simpy", "numpy", "simulations", "networkx", "matplotlib")


@pytest.fixture(autouse=True)
def _needs_mcp():
    if importlib.util.find_spec("mcp") is None:
        message = "python package 'mcp' is missing: pip install -e '.[guard]'"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)


def _in_fresh_interpreter(code: str) -> str:
    """What `code` prints, run by a new interpreter from the repository root (this checkout's
    packages first on sys.path)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_package_imports_without_the_simulators():
    code = ("import sys, mcp_resume_guard; "
            f"bad=[m for m in {SIMULATOR_MODULES!r} if m in sys.modules]; print(bad)")
    assert _in_fresh_interpreter(code) == "[]"


def test_the_package_is_this_checkout_and_exports_its_public_names():
    code = ("import mcp_resume_guard as g; print(g.__file__); "
            "print(all(hasattr(g, name) for name in g.__all__))")
    location, exported = _in_fresh_interpreter(code).splitlines()
    assert Path(location).parent == ROOT / "mcp_resume_guard"
    assert exported == "True"
