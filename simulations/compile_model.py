"""Build the compiled model: mypyc over `model/`'s modules into `model/_native/`, and over the
engines' hot modules (simulations/compiled_group.py) into their packages' `_native/`.

The build is an optimisation and never a requirement: with no C compiler, no mypyc, or a failed
compilation, it reports why and the model keeps loading from source (model/native.py decides
at import, from the digest of the sources the build was made from). The build runs in a scratch
directory on a copy of the sources, in a child process, and replaces `model/_native/` in one
rename, so an interrupted or failed build leaves the previous state intact.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Optional, Tuple

from model import native

from . import profile_guided
from .compiled_group import CompiledGroup
from .des.native import DES
from .explore.native import ENGINE

MODEL_DIR = Path(native.__file__).resolve().parent
BUILD_DIR = MODEL_DIR / native.NATIVE_DIR
SIMULATIONS_DIR = Path(__file__).resolve().parent
#: the engine groups compiled beside the model, in build order
GROUPS: Tuple[CompiledGroup, ...] = (ENGINE, DES)

# Run in the scratch directory by the child interpreter: setuptools' build_ext over mypycify,
# one group per package (the model's, then each engine group, which calls into the model's).
# mypy type-checks the compiled modules first, with --strict-equality: a comparison with a
# value outside a vocabulary (model/vocabulary.py's Phase, Status, ...) is then a build error;
# the modules they import are analysed for their types only.
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
      script_args=["build_ext", "--inplace"] + sys.argv[2:])
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
    """True when `model/_native/` and every engine group's `_native/` hold builds of exactly
    today's sources (whatever MCP_MODEL_PURE says)."""
    if native.native_dir(str(MODEL_DIR), honour_env=False)[0] is None:
        return False
    return all(group.usable()[0] is not None for group in GROUPS)


def _digests() -> Tuple[str, ...]:
    return (native.source_digest(str(MODEL_DIR)),) + tuple(g.digest() for g in GROUPS)


def _relative(group: CompiledGroup) -> Path:
    """The group's package directory, relative to the project (e.g. simulations/des)."""
    return Path(group.package_dir).resolve().relative_to(SIMULATIONS_DIR.parent)


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


def _setup(work: Path, groups: list, env: dict, *more: str) -> Optional[str]:
    """Run the build in `work` (`more`: build_ext options); None if it built, else its errors
    (or, mypyc failing on a note too, its notes)."""
    done = subprocess.run([sys.executable, "-c", _SETUP, json.dumps(groups), *more],
                          cwd=work, capture_output=True, text=True, env=env)
    if done.returncode == 0:
        return None
    lines = (done.stdout + done.stderr).strip().splitlines()
    tail = ([line for line in lines if ": note: " not in line] or lines)[-12:]
    return "\n  ".join(tail)


def _final_env(work: Path, groups: list, env: dict, profile: bool) -> Tuple[dict, Optional[str]]:
    """The environment of the build to keep, and why it has no profile (None: it has one).
    Where the compiler can, it adds `profile_guided.COMMON_FLAGS` and (with `profile`) the
    profile of a training run on an instrumented build made first in `work`."""
    unguided = profile_guided.unavailable()
    if unguided is not None:
        return env, unguided
    env = profile_guided.with_flags(env, profile_guided.COMMON_FLAGS)
    if not profile:
        return env, "--no-profile"
    failed = _setup(work, groups, profile_guided.with_flags(env, profile_guided.flags(
        "generate", work)))
    if failed:
        return env, "the instrumented build failed: " + failed.splitlines()[-1].strip()
    unguided = profile_guided.train(work)
    if unguided is not None:
        return env, unguided
    return profile_guided.with_flags(env, profile_guided.flags("use", work)), None


def _build_kept(work: Path, groups: list, env: dict,
                profile: bool) -> Tuple[Optional[str], Optional[str]]:
    """Make the build to keep in `work`: (its errors or None, why it has no profile or None).
    A build that fails with the flags or the profile `_final_env` added is made again without
    them, so that they never cost a compiled model."""
    final, unguided = _final_env(work, groups, env, profile)
    failed = _setup(work, groups, final, "--force")
    if failed and final is not env:
        unguided = "the build with GCC's flags failed: " + failed.splitlines()[-1].strip()
        failed = _setup(work, groups, env, "--force")
    return failed, unguided


def build(force: bool = False, profile: bool = True) -> Outcome:
    """Compile the model and the engine groups unless current builds exist (or `force`);
    guided by a training run's profile where the compiler can and `profile` is True."""
    if not force and is_current():
        return Outcome(True, f"model: compiled build up to date ({BUILD_DIR})")
    missing = missing_toolchain()
    if missing:
        return Outcome(False, f"model: not compiled, {missing}; the Python sources are used")
    started = time.perf_counter()
    digests = _digests()
    modules = native.compiled_modules(str(MODEL_DIR))
    skip = shutil.ignore_patterns("__pycache__", native.NATIVE_DIR, ".native-*", "*.so",
                                  "node_modules")
    with tempfile.TemporaryDirectory(prefix="model-native-") as scratch:
        work = Path(scratch)
        shutil.copytree(MODEL_DIR, work / "model", ignore=skip)
        # the whole package, so that mypy sees the types the groups' modules import
        shutil.copytree(SIMULATIONS_DIR, work / "simulations", ignore=skip)
        groups = [[[f"model/{m}.py" for m in modules], native.GROUP]] + \
            [[[f"{_relative(g).as_posix()}/{m}.py" for m in g.modules], g.group] for g in GROUPS]
        # -fwrapv: signed overflow wraps (model/tuple_hash.py relies on it; CPython's own
        # flags usually carry it already)
        env = {**os.environ, "CFLAGS": f"{os.environ.get('CFLAGS', '')} -fwrapv".strip()}
        failed, unguided = _build_kept(work, groups, env, profile)
        if failed:
            return Outcome(False, "model: compilation failed, the Python sources are used:\n  "
                           + failed)
        if _digests() != digests:
            return Outcome(False, "model: sources changed during the build; run it again")
        staged = [(_stage(work / "model", modules + [native.SHARED_LIBRARY], digests[0],
                          MODEL_DIR), BUILD_DIR)]
        for group, digest in zip(GROUPS, digests[1:]):
            staged.append((_stage(work / _relative(group), group.extensions, digest,
                                  Path(group.package_dir)), Path(group.build_dir)))
    for built, build_dir in staged:
        _swap(built, build_dir)
    seconds = time.perf_counter() - started
    engines = sum(len(g.modules) for g in GROUPS)
    guided = "profile-guided" if unguided is None else f"without a profile: {unguided}"
    return Outcome(True, f"model: compiled {len(modules)} modules and the engines' {engines} "
                         f"with mypyc in {seconds:.0f} s, {guided} ({BUILD_DIR}, "
                         + ", ".join(g.build_dir for g in GROUPS) + ")", seconds)


def remove() -> Outcome:
    """Delete the compiled builds; the model and the engines load from source afterwards."""
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    for group in GROUPS:
        shutil.rmtree(group.build_dir, ignore_errors=True)
    return Outcome(False, "model: compiled builds removed; the Python sources are used")
