"""What every verb parses the same way: the parser class, policy lists, user gates, and turning
an engine's input check into a UsageError. A verb validates all of its input with these before
it does any work."""
from __future__ import annotations

import argparse
from typing import Callable, List, Optional, TypeVar

from model import ConfigError, unknown_policy
from model.policies import STATELESS_ROWS

from ..des.config import parse_row
from ..gates import GateLoadError, load_gate
from .errors import UsageError

T = TypeVar("T")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def parse_policies(text: Optional[str], option: str = "--policy", rows: bool = False,
                   one: str = "") -> Optional[List[str]]:
    """The comma-separated policy names of an option (None when it was not given); with `rows`,
    DES policy rows (`POLICY` or `POLICY+PROFILE`); with `one` (what takes a single policy,
    e.g. "explore"), exactly one name. A stateless transport ("stateless",
    "stateless+idempotency", "tasks") is a row of its own wherever a policy is. An empty or unknown
    name is a UsageError naming the option and the valid names."""
    if text is None:
        return None
    names = [name.strip() for name in text.split(",")]
    if one and len(names) > 1:
        raise UsageError(f"{option}: {one} takes one policy, got {text!r}")
    if not any(names):
        raise UsageError(f"{option} {text!r}: names no policy")
    if not all(names):
        raise UsageError(f"{option} {text!r}: an empty policy name")
    for name in names:
        if rows:
            try:
                parse_row(name)
            except ConfigError as exc:
                raise UsageError(f"{option}: {exc.problem}") from None
        elif name not in STATELESS_ROWS:
            problem = unknown_policy(name)
            if problem is not None:
                raise UsageError(f"{option}: {problem}, or a stateless transport "
                                 f"({', '.join(STATELESS_ROWS)})")
    return names


def user_gate(path: str, where: str = ""):
    """A user's gate loaded from MODULE:FUNCTION; a UsageError says why it could not be."""
    try:
        return load_gate(path)
    except GateLoadError as exc:
        raise UsageError(f"{where}{exc}") from exc


def checked(check: Callable[..., T], *args, prefix: str = "") -> T:
    """Run an engine's input check (it raises ValueError with the one-line reason) and turn its
    failure into a UsageError."""
    try:
        return check(*args)
    except ValueError as exc:
        raise UsageError(f"{prefix}{exc}") from None
