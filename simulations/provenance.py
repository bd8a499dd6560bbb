"""Provenance of results: code version, package versions, and atomic writes.

Every results folder gets a `manifest.json` built here; files are written through a temporary
name and renamed, so an interrupted or failed run never leaves a partial file behind.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Dict, Mapping, Sequence

PACKAGES = ("numpy", "simpy", "networkx", "matplotlib", "pandas", "hypothesis")
ROOT = Path(__file__).resolve().parent.parent


def code_version(root: Path = ROOT) -> Dict[str, object]:
    """The git commit of the checkout and whether its code has uncommitted changes (None outside
    git). Changes under results/ and to README.md do not count: they are the outputs being
    regenerated (the README's generated blocks are rewritten from results by `readme`), so a
    manifest written after its folder's other files, or after an earlier step of `make results`,
    would otherwise always say "dirty"."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", ".",
                         ":(exclude)results", ":(exclude)README.md"))
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def sources_hash(entries: Sequence[str], root: Path = ROOT) -> str:
    """sha256 (16 hex digits) of every Python source under `entries` (folders or files,
    relative to the repository root): paths and contents, in order. A result keyed by it is
    recomputed when its code changes, and kept across commits that do not touch that code."""
    digest = hashlib.sha256()
    for entry in entries:
        path = root / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def package_versions() -> Dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def manifest(command: str, config: Mapping[str, object], seeds: object = None) -> dict:
    """A manifest: what was run, on which code and packages, with which config and seeds."""
    return {"command": command, "argv": sys.argv[1:], "config": dict(config), "seeds": seeds,
            "code": code_version(), "packages": package_versions(),
            "host": {"platform": platform.platform(), "cpus": os.cpu_count()}}


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json(path: Path, data: object) -> None:
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
