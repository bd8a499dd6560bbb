"""The conformance results folder: conformance.json (rows + versions), CONFORMANCE.md (the table
with the evidence behind every row) and manifest.json. Ports, pids and timings differ from run to
run; the outcomes compared do not."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

from ..provenance import manifest, write_atomic, write_json
from .harness import SERVER_TITLES, Row, details, table

_INTRO = """\
# Conformance: the model against the real MCP Python SDK

Each case runs against real servers (the PyPI `mcp` package under uvicorn on 127.0.0.1; two of
them behind nginx for the load-balanced cases) and against the model's scenario for the same
topology. A row agrees when the answer to the case's resumption (HTTP status, structured code,
what the stream did) and, where the SDK's own client drove the case, where that client ended up,
are the same on both sides.

Servers:
{servers}

Regenerate: `python -m simulations conformance --out results/conformance` (or `make
conformance`); needs `pip install -e '.[conformance]'` and nginx.
"""


def write_results(folder: Path, rows: List[Row], env: Dict[str, str], cases: List[str],
                  servers: List[str]) -> None:
    folder = Path(folder)
    agree = sum(r.agree for r in rows)
    text = (_INTRO.format(servers="\n".join(f"- `{s}`: {SERVER_TITLES[s]}" for s in servers))
            + f"\n## Table ({agree} of {len(rows)} rows agree)\n\n" + table(rows)
            + "\n\n## Evidence\n\n" + details(rows) + "\n\n## Versions\n\n"
            + "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n")
    write_json(folder / "conformance.json", {"environment": env,
                                             "rows": [r.as_dict() for r in rows]})
    write_atomic(folder / "CONFORMANCE.md", text)
    write_json(folder / "manifest.json", manifest(
        "python -m simulations conformance", {"cases": cases, "servers": servers,
                                              "versions": env}))


def load_rows(folder: Path) -> List[Row]:
    """The rows of a results folder's conformance.json."""
    data = json.loads((Path(folder) / "conformance.json").read_text())
    return [Row.from_dict(row) for row in data["rows"]]
