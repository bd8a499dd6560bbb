"""Build the compiled model: mypyc over `model/`'s modules into `model/_native/`.

The build is an optimisation and never a requirement: with no C compiler, no mypyc, or a failed
compilation, it reports why and the model keeps loading from source (model/native.py decides
at import, from the digest of the sources the build was made from). The build runs in a scratch
directory on a copy of the sources, in a child process, and replaces `model/_native/` in one
rename, so an interrupted or failed build leaves the previous state intact.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Optional

from model import native

MODEL_DIR = Path(native.__file__).resolve().parent
BUILD_DIR = MODEL_DIR / native.NATIVE_DIR

# Run in the scratch directory by the child interpreter: setuptools' build_ext over mypycify.
# mypy type-checks the model first, with --strict-equality: a comparison with a value outside a
# vocabulary (model/state.py's Phase, Status, ...) is then a build error.
_SETUP = """
import json, sys
from setuptools import setup
from mypyc.build import mypycify
paths, group = json.loads(sys.argv[1])
setup(name="model-native",
      ext_modules=mypycify(["--strict-equality"] + paths, opt_level="3",
                           separate=[(paths, group)]),
      script_args=["build_ext", "--inplace"])
"""


@dataclass(frozen=True)
class Outcome:
    """What a build did: `compiled` (now usable), and one line saying why or why not."""
    compiled: bool
    message: str
    seconds: float = 0.0


def missing_toolchain() -> Optional[str]:
    """Why this machine cannot compile the model, or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} is not on PATH)"
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (pip install -e '.[compiled]')"
    if not Path(sysconfig.get_paths()["include"], "Python.h").exists():
        return "no Python headers (Python.h) for this interpreter"
    return None


def is_current() -> bool:
    """True when `model/_native/` holds a build of exactly today's sources (whatever
    MCP_MODEL_PURE says)."""
    return native.native_dir(str(MODEL_DIR), honour_env=False)[0] is not None


def build(force: bool = False) -> Outcome:
    """Compile the model unless a current build exists (or `force`)."""
    if not force and is_current():
        return Outcome(True, f"model: compiled build up to date ({BUILD_DIR})")
    missing = missing_toolchain()
    if missing:
        return Outcome(False, f"model: not compiled, {missing}; the Python sources are used")
    started = time.perf_counter()
    digest = native.source_digest(str(MODEL_DIR))
    modules = native.compiled_modules(str(MODEL_DIR))
    with tempfile.TemporaryDirectory(prefix="model-native-") as scratch:
        work = Path(scratch)
        shutil.copytree(MODEL_DIR, work / "model",
                        ignore=shutil.ignore_patterns("__pycache__", native.NATIVE_DIR, "*.so"))
        paths = [f"model/{m}.py" for m in modules]
        done = subprocess.run([sys.executable, "-c", _SETUP, json.dumps([paths, native.GROUP])],
                              cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
            return Outcome(False, "model: compilation failed, the Python sources are used:\n  "
                           + "\n  ".join(tail))
        if native.source_digest(str(MODEL_DIR)) != digest:
            return Outcome(False, "model: sources changed during the build; run it again")
        staged = Path(tempfile.mkdtemp(prefix=".native-", dir=MODEL_DIR))
        staged.chmod(0o755)
        suffix = EXTENSION_SUFFIXES[0]
        for name in modules + [native.SHARED_LIBRARY]:
            shutil.copy2(work / "model" / (name + suffix), staged / (name + suffix))
        (staged / native.DIGEST_FILE).write_text(digest + "\n")
    old = MODEL_DIR / ".native-old"
    shutil.rmtree(old, ignore_errors=True)
    if BUILD_DIR.exists():
        BUILD_DIR.rename(old)
    staged.rename(BUILD_DIR)
    shutil.rmtree(old, ignore_errors=True)
    seconds = time.perf_counter() - started
    return Outcome(True, f"model: compiled {len(modules)} modules with mypyc in {seconds:.0f} s "
                         f"({BUILD_DIR})", seconds)


def remove() -> Outcome:
    """Delete the compiled build; the model loads from source afterwards."""
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    return Outcome(False, "model: compiled build removed; the Python sources are used")
