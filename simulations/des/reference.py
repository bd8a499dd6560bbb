"""The configuration reference: every key a DES config accepts, its default and its meaning,
generated from the config classes and the commented default file (README block
"config-reference"; a test keeps it equal and complete)."""
from __future__ import annotations

import re
from dataclasses import fields
from typing import Dict, List, Tuple

from model import SystemConfig

from ..render import markdown
from .config import DEFAULT_CONFIG, EXPLORER_ONLY, Timing, read_toml

_LINE = re.compile(r"^(\w+)\s*=\s*(.*?)\s*(?:#\s*(.*))?$")
_MORE = re.compile(r"^\s+#\s*(.*)$")


def comments() -> Dict[Tuple[str, str], str]:
    """(section, key) -> the comment on its line in the default file (with continuation lines)."""
    out: Dict[Tuple[str, str], str] = {}
    section, last = "", None
    for line in DEFAULT_CONFIG.read_text().splitlines():
        header = re.match(r"^\[(\w+)\]", line)
        if header:
            section, last = header.group(1), None
            continue
        more = _MORE.match(line)
        if more and last is not None:
            out[last] += " " + more.group(1)
            continue
        found = _LINE.match(line)
        if found:
            last = (section, found.group(1))
            out[last] = found.group(3) or ""
        else:
            last = None
    return out


def keys() -> List[Tuple[str, str]]:
    """Every key a DES config accepts, in the classes' order."""
    system = [("system", f.name) for f in fields(SystemConfig) if f.name not in EXPLORER_ONLY]
    timing = [("timing", f.name) for f in fields(Timing)]
    return system + timing + [("client", "profile")] + \
        [("run", k) for k in ("policies", "replications", "seed", "baseline")]


def reference_markdown() -> str:
    """| key | default | meaning |, one row per key."""
    defaults, notes = read_toml(DEFAULT_CONFIG), comments()
    rows = []
    for section, key in keys():
        value = defaults[section][key]
        shown = ", ".join(value) if isinstance(value, list) else \
            str(value).lower() if isinstance(value, bool) else str(value)
        rows.append([f"`{section}.{key}`", f"`{shown}`", notes[(section, key)]])
    return markdown(("", ["key", "default", "meaning"], rows), with_title=False)
