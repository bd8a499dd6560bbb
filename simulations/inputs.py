"""What the CLI reads and writes, checked before any work: input files, result folders,
output locations, and the precision options run and sweep share.

Every problem is a `ValueError` whose message is the one line the user sees: it names the path
and what is wrong with it. Nothing here writes.
"""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any, Dict, Optional

from model import ConfigError


class InputFileError(ConfigError):
    """A file given as input is missing, a directory, unreadable, not UTF-8 or not TOML; its
    message names the file, not a config key."""

    def __str__(self) -> str:
        return f"{self.key}: {self.problem}"


def read_toml(path: Path, what: str = "config file") -> Dict[str, Any]:
    """A TOML file as a dict; a missing, unreadable, non-UTF-8 or malformed file is a
    ConfigError naming the file and the problem."""
    path = Path(path)
    if not path.exists():
        raise InputFileError(str(path), f"no such {what}")
    if not path.is_file():
        raise InputFileError(str(path), f"is a directory, not a {what}" if path.is_dir()
                          else f"is not a regular file, not a {what}")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputFileError(str(path), f"cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise InputFileError(str(path), f"is not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(str(path), f"not valid TOML ({exc})") from None


# what each writing verb leaves in its folder, and what marks a folder it may resume or rewrite
OUTPUTS = {"run": ("manifest.json", None), "sweep": ("manifest.json", "runs"),
           "verify": ("manifest.json", "cells")}


def read_json(path: Path, what: str) -> object:
    """A JSON file's content; missing, unreadable, non-UTF-8 or malformed is a ValueError."""
    if not path.is_file():
        raise ValueError(f"{path}: {what} is missing")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: {what} cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {what} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: {what} is not valid JSON ({exc.msg}, line {exc.lineno})") \
            from None


def read_manifest(folder: Path) -> dict:
    manifest = read_json(Path(folder) / "manifest.json", "the manifest")
    if not isinstance(manifest, dict) or "command" not in manifest or "config" not in manifest:
        raise ValueError(f"{Path(folder) / 'manifest.json'}: not a manifest written by this "
                         "tool (no command or config)")
    return manifest


def check_out(path: Path, verb: str) -> None:
    """--out must be a new or empty folder, or one this verb wrote before (rewritten, or for a
    sweep or the matrix resumed); anything else is refused before any work."""
    path = Path(path)
    if not path.exists():
        if path.parent.exists() and not path.parent.is_dir():
            raise ValueError(f"--out {path}: {path.parent} is a file, not a folder")
        return
    if not path.is_dir():
        raise ValueError(f"--out {path}: exists and is a file; name a new or empty folder")
    if not any(path.iterdir()):
        return
    manifest_name, partial = OUTPUTS[verb]
    if partial and (path / partial).is_dir():
        return
    if (path / manifest_name).is_file():
        try:
            command = str(read_manifest(path).get("command", ""))
        except ValueError:
            command = ""
        if command.startswith(f"{verb} ") or command.startswith(f"python -m simulations {verb}"):
            return
    raise ValueError(f"--out {path}: holds files this `{verb}` did not write; name a new or "
                     "empty folder (or a previous output of the same verb)")


def add_precision_arguments(parser, per: str, cap: int) -> None:
    """--precision H and --max-replications N (checked by `check_precision`)."""
    parser.add_argument("--precision", type=float, metavar="H",
                        help="double the replications until every headline interval (share of "
                             f"sessions per violation, {per}) has half-width <= H (e.g. 0.01), "
                             "or --max-replications is reached; says which did not")
    parser.add_argument("--max-replications", type=int, default=cap, metavar="N",
                        help=f"cap for --precision (default {cap})")


def check_precision(precision: Optional[float], cap: int) -> None:
    """--precision is the half-width of a share (0 < H < 1); --max-replications at least 2."""
    if precision is not None and not 0 < precision < 1:
        raise ValueError(f"--precision: a half-width of a share, between 0 and 1 (e.g. 0.01); "
                         f"got {precision:g}")
    if cap < 2:
        raise ValueError(f"--max-replications: at least 2; got {cap}")


def check_folder_out(path: Path, flag: str) -> None:
    """An output folder a verb fills (diagrams, logs, tables): absent or a folder."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{flag} {path}: exists and is a file; name a folder")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{flag} {path}: {parent} is a file, not a folder")
            break


def check_file_out(path: Path, flag: str) -> None:
    """An output file: not a folder, and its folder can exist."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{flag} {path}: is a folder; name a file")
    check_folder_out(path.parent, flag)


def check_run_folder(folder: Path) -> dict:
    """A `run` folder: its manifest and summary.json (config and summary) parse."""
    read_manifest(folder)
    data = read_json(Path(folder) / "summary.json", "the run's summary")
    if not isinstance(data, dict) or not {"config", "summary"} <= set(data):
        raise ValueError(f"{Path(folder) / 'summary.json'}: not a run summary (no config or "
                         "summary)")
    return data


def check_sweep_folder(folder: Path):
    """A sweep folder: its manifest parses and results.csv holds every run the manifest's spec
    names, with no missing value in the columns the figures and reports read. Returns the
    frame (with the manifest in `.attrs`)."""
    import pandas as pd
    folder = Path(folder)
    manifest = read_manifest(folder)
    path = folder / "results.csv"
    if not path.is_file():
        raise ValueError(f"{path}: the sweep's results are missing (run `sweep SPEC --out "
                         f"{folder}` first)")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    spec = manifest["config"]
    needed = ["key", "policy", "replication", "sessions", "session_hours"] + \
        [f"param.{k}" for k in spec.get("grid", {})]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: columns missing: {', '.join(missing)}")
    grid = spec.get("grid", {})
    expected = math.prod(len(v) for v in grid.values()) * len(spec.get("policies", [])) \
        * int(spec.get("replications", 0))
    if len(frame) != expected:
        raise ValueError(f"{path}: {len(frame)} rows, but the manifest's sweep has {expected} "
                         "runs (truncated or edited); run the sweep again to rewrite it")
    empty = [c for c in needed if frame[c].isna().any()]
    if empty:
        raise ValueError(f"{path}: empty cells in {', '.join(empty)}")
    frame.attrs["manifest"] = manifest
    return frame


def folder_kind(folder: Path) -> Optional[str]:
    """"run", "sweep" or None, from the files present."""
    folder = Path(folder)
    if (folder / "summary.json").is_file():
        return "run"
    if (folder / "results.csv").is_file():
        return "sweep"
    return None
