"""The conformance results folders. The cases: conformance.json (rows, finding replays,
versions), CONFORMANCE.md (the table with the evidence behind every row, then the differential
findings) and manifest.json. A differential run: differential.json, DIFFERENTIAL.md and
manifest.json. Ports, pids and timings differ from run to run; the outcomes compared do not."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Sequence

from ..provenance import manifest, write_atomic, write_json
from ..render import markdown
from .differential.findings import FindingRow
from .harness import SERVER_TITLES, Row, details, findings_table, table

_INTRO = """\
# Conformance: the model against the real MCP SDKs

Each case runs against real servers (the PyPI `mcp` package under uvicorn, and the npm
`@modelcontextprotocol/sdk` under node, on 127.0.0.1; two of them behind nginx for the
load-balanced cases) and against the model's scenario for the same topology. A cell agrees when
the answer to the case's resumption (HTTP status, structured code, what the stream did) and,
where the SDK's own client drove the case, where that client ended up, are the same on both
sides. A difference that is a documented defect of the real server says "explained" and names
it under Evidence.

Servers:
{servers}

Regenerate: `python -m simulations conformance --out results/conformance` (or `make
conformance`); needs `pip install -e '.[conformance]'`, nginx, and Node 20 with `npm ci` in
`simulations/conformance/ts`.
"""

_FINDINGS = """## Differential findings

What `python -m simulations conformance --differential` found: random action sequences run in
lockstep on the model and on real servers, each disagreement shrunk to a minimal sequence. Each
is resolved (the model changed, the guard fixed, or the real server's defect documented) and its
sequence is replayed against the servers it showed on in every conformance run.

"""

_DIFFERENTIAL = """# Differential testing: random sequences on the model and on real MCP servers

Each sequence is a random walk over the model's enabled actions (Hypothesis stateful testing):
initialize and call a tool, emit one message, deliver one event, drop a connection or leave it
half-open, let the load balancer close an idle stream, resume on either instance, persist a
cursor and restart the client onto it, present another session's cursor, drain, stop or start an
instance. The harness does each action to a real two-instance fleet of the named server (it
routes every request itself) and compares, after every step, the answer to a resumption
(status, code), what every open stream carried and whether it closed, and every client's cursor;
at the end, what each client applied. A disagreement is shrunk to a minimal sequence.

Regenerate: `python -m simulations conformance --differential --examples {examples} --seed
{seed} --out results/conformance/differential` (part of `make results`).

"""


def write_results(folder: Path, rows: List[Row], env: Dict[str, str], cases: List[str],
                  servers: List[str], replays: Sequence[FindingRow] = ()) -> None:
    folder = Path(folder)
    text = (_INTRO.format(servers="\n".join(f"- `{s}`: {SERVER_TITLES[s]}" for s in servers))
            + f"\n## Table ({summary(rows)})\n\n" + table(rows)
            + "\n\n## Evidence\n\n" + details(rows) + "\n\n")
    if replays:
        text += _FINDINGS + findings_table(list(replays)) + "\n\n"
    text += "## Versions\n\n" + "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n"
    write_json(folder / "conformance.json", {"environment": env,
                                             "rows": [r.as_dict() for r in rows],
                                             "findings": [r.as_dict() for r in replays]})
    write_atomic(folder / "CONFORMANCE.md", text)
    write_json(folder / "manifest.json", manifest(
        "python -m simulations conformance", {"cases": cases, "servers": servers,
                                              "findings": sorted({r.finding for r in replays}),
                                              "versions": env}))


def summary(rows: List[Row]) -> str:
    """"22 of 33 cells agree, 2 differ by a documented server defect"."""
    agree = sum(r.agree for r in rows)
    explained = sum(r.settled and not r.agree for r in rows)
    return f"{agree} of {len(rows)} cells agree" + \
        (f", {explained} differ by a documented server defect" if explained else "")


def write_differential(folder: Path, runs: List[Dict], env: Dict[str, str]) -> None:
    """A differential run's folder: the summaries, a Markdown report and a manifest."""
    folder = Path(folder)
    first = runs[0]
    header = ["server (model)", "sequences", "steps", "disagreements", "seconds"]
    body = [[f"{r['server']} ({r['policy']})", str(r["sequences"]), str(r["steps"]),
             str(len(r["disagreements"])), f"{r['seconds']:.0f}"] for r in runs]
    text = _DIFFERENTIAL.format(examples=first["examples"], seed=first["seed"])
    text += markdown(("", header, body), with_title=False) + "\n\n"
    for r in runs:
        text += f"## {r['server']}\n\n"
        text += "Steps by action: " + ", ".join(f"{k} {v}" for k, v in r["actions"].items())
        text += "\n\nResumptions by the model's answer: " + \
            ", ".join(f"{k} ({v})" for k, v in r["answers"].items()) + "\n\n"
        for found in r["disagreements"]:
            text += (f"- **{found['kind']}**: {found['what']}\n  - sequence: "
                     + "; ".join(found["sequence"]) + "\n")
        if not r["disagreements"]:
            text += "No disagreement.\n"
        text += "\n"
    text += "## Versions\n\n" + "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n"
    write_json(folder / "differential.json", {"environment": env, "runs": runs})
    write_atomic(folder / "DIFFERENTIAL.md", text)
    write_json(folder / "manifest.json", manifest(
        "python -m simulations conformance --differential",
        {"servers": [r["server"] for r in runs], "examples": first["examples"],
         "scope": first["scope"], "versions": env}, seeds=first["seed"]))


def load_rows(folder: Path) -> List[Row]:
    """The rows of a results folder's conformance.json."""
    data = json.loads((Path(folder) / "conformance.json").read_text())
    return [Row.from_dict(row) for row in data["rows"]]
