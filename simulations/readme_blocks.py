"""The README's generated blocks, each rebuilt from its source of truth (the property registry,
the config file's comments, committed results). `python -m simulations readme` rewrites the
stale ones; `--check` only names them. Tests compare each block with its generator, so a result
regenerated without refreshing the README fails CI; `make des-results`, `make verification` and
`make conformance` refresh the README as their last step."""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Sequence

ROOT = Path(__file__).resolve().parent.parent
MATRIX = Path("results/verification/matrix")


@contextlib.contextmanager
def at_root() -> Iterator[None]:
    """Generators read committed results by relative path: run them from the repository."""
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(here)


def _headline() -> str:
    from .headline import HEADLINE_SWEEPS, headline_markdown
    return headline_markdown(HEADLINE_SWEEPS)


def _transports() -> str:
    from .transports import verdicts_markdown
    return verdicts_markdown()


def _transports_sweep() -> str:
    from .transports import sweep_markdown
    return sweep_markdown()


def _config_reference() -> str:
    from .des.reference import reference_markdown
    return reference_markdown()


def _verification_summary() -> str:
    from .verify.claims import summary_markdown
    cells = [json.loads(line) for line in (MATRIX / "cells.jsonl").read_text().splitlines()]
    timings = json.loads((MATRIX / "timings.json").read_text())
    return summary_markdown(cells, timings)


def _conformance() -> str:
    from .conformance.harness import table
    from .conformance.report import load_rows
    return table(load_rows(Path("results/conformance")))


def _properties() -> str:
    from .verify.claims import properties_markdown
    return properties_markdown()


# In README order; `transports` explores the designs (about 30 s), the others read files.
BLOCKS: Dict[str, Callable[[], str]] = {
    "headline": _headline,
    "transports": _transports,
    "transports-sweep": _transports_sweep,
    "config-reference": _config_reference,
    "verification-summary": _verification_summary,
    "conformance": _conformance,
    "properties": _properties,
}


def generate(names: Sequence[str]) -> Dict[str, str]:
    """Each named block's content as its generator makes it now (no trailing newline)."""
    with at_root():
        return {name: BLOCKS[name]().rstrip("\n") for name in names}


def stale(text: str, fresh: Dict[str, str]) -> List[str]:
    """The blocks of `text` whose content differs from `fresh` (in `fresh`'s order)."""
    from .verify.claims import block
    return [name for name, content in fresh.items() if block(text, name) != content]


def missing_markers(text: str, names: Sequence[str]) -> List[str]:
    """The named blocks `text` has no start or end marker for (checked before any generator
    runs, so a wrong file is refused before the work)."""
    return [name for name in names
            if f"<!-- {name}:start -->\n" not in text or f"<!-- {name}:end -->" not in text]


def refreshed(text: str, fresh: Dict[str, str]) -> str:
    """`text` with every block in `fresh` replaced; the rest of the file is kept byte for byte."""
    from .verify.claims import fill
    for name, content in fresh.items():
        text = fill(text, name, content)
    return text
