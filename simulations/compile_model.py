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

from .explore import native as engine_native

MODEL_DIR = Path(native.__file__).resolve().parent
BUILD_DIR = MODEL_DIR / native.NATIVE_DIR
ENGINE_DIR = Path(engine_native.PACKAGE_DIR)
ENGINE_BUILD_DIR = ENGINE_DIR / native.NATIVE_DIR

# Run in the scratch directory by the child interpreter: setuptools' build_ext over mypycify,
# one group per package (the model's, and the explorer's inner loop, which calls into the
# model's). mypy type-checks the compiled modules first, with --strict-equality: a comparison
# with a value outside a vocabulary (model/vocabulary.py's Phase, Status, ...) is then a build
# error; the modules they import are analysed for their types only.
_SETUP = """
import json, sys
from setuptools import setup
from mypyc.build import mypycify
groups = json.loads(sys.argv[1])
paths = [path for group_paths, _ in groups for path in group_paths]
setup(name="model-native",
      ext_modules=mypycify(["--strict-equality", "--follow-imports=silent",
                            "--ignore-missing-imports"] + paths, opt_level="3",
                           separate=[(group_paths, name) for group_paths, name in groups]),
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
    """True when `model/_native/` and `simulations/explore/_native/` hold builds of exactly
    today's sources (whatever MCP_MODEL_PURE says)."""
    if native.native_dir(str(MODEL_DIR), honour_env=False)[0] is None:
        return False
    wanted = list(engine_native.ENGINE_MODULES) + [native.SHARED_LIBRARY]
    return native.usable_build(str(ENGINE_BUILD_DIR), engine_native.engine_digest(),
                               wanted)[0] is not None


def _stage(source: Path, names, digest: str, package: Path) -> Path:
    """A new build directory inside `package` holding the extension `names` from `source`."""
    staged = Path(tempfile.mkdtemp(prefix=".native-", dir=package))
    staged.chmod(0o755)
    suffix = EXTENSION_SUFFIXES[0]
    for name in names:
        shutil.copy2(source / (name + suffix), staged / (name + suffix))
    (staged / native.DIGEST_FILE).write_text(digest + "\n")
    return staged


def _swap(staged: Path, build_dir: Path) -> None:
    """Replace `build_dir` by `staged` (renames: an interrupted swap leaves one or the other)."""
    old = build_dir.parent / ".native-old"
    shutil.rmtree(old, ignore_errors=True)
    if build_dir.exists():
        build_dir.rename(old)
    staged.rename(build_dir)
    shutil.rmtree(old, ignore_errors=True)


def build(force: bool = False) -> Outcome:
    """Compile the model and the explorer's inner loop unless current builds exist (or
    `force`)."""
    if not force and is_current():
        return Outcome(True, f"model: compiled build up to date ({BUILD_DIR})")
    missing = missing_toolchain()
    if missing:
        return Outcome(False, f"model: not compiled, {missing}; the Python sources are used")
    started = time.perf_counter()
    digest, engine_digest = native.source_digest(str(MODEL_DIR)), engine_native.engine_digest()
    modules = native.compiled_modules(str(MODEL_DIR))
    engines = list(engine_native.ENGINE_MODULES)
    skip = shutil.ignore_patterns("__pycache__", native.NATIVE_DIR, ".native-*", "*.so")
    with tempfile.TemporaryDirectory(prefix="model-native-") as scratch:
        work = Path(scratch)
        shutil.copytree(MODEL_DIR, work / "model", ignore=skip)
        (work / "simulations").mkdir()
        shutil.copy2(ENGINE_DIR.parent / "__init__.py", work / "simulations" / "__init__.py")
        shutil.copytree(ENGINE_DIR, work / "simulations" / "explore", ignore=skip)
        groups = [[[f"model/{m}.py" for m in modules], native.GROUP],
                  [[f"simulations/explore/{m}.py" for m in engines], engine_native.GROUP]]
        done = subprocess.run([sys.executable, "-c", _SETUP, json.dumps(groups)],
                              cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
            return Outcome(False, "model: compilation failed, the Python sources are used:\n  "
                           + "\n  ".join(tail))
        if (native.source_digest(str(MODEL_DIR)), engine_native.engine_digest()) != \
                (digest, engine_digest):
            return Outcome(False, "model: sources changed during the build; run it again")
        staged = _stage(work / "model", modules + [native.SHARED_LIBRARY], digest, MODEL_DIR)
        staged_engine = _stage(work / "simulations" / "explore",
                               engines + [native.SHARED_LIBRARY], engine_digest, ENGINE_DIR)
    _swap(staged, BUILD_DIR)
    _swap(staged_engine, ENGINE_BUILD_DIR)
    seconds = time.perf_counter() - started
    return Outcome(True, f"model: compiled {len(modules)} modules and the explorer's "
                         f"{len(engines)} with mypyc in {seconds:.0f} s ({BUILD_DIR}, "
                         f"{ENGINE_BUILD_DIR})", seconds)


def remove() -> Outcome:
    """Delete the compiled builds; the model and the explorer load from source afterwards."""
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    shutil.rmtree(ENGINE_BUILD_DIR, ignore_errors=True)
    return Outcome(False, "model: compiled build removed; the Python sources are used")
