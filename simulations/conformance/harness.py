"""Run the cases against real servers and put the model's prediction beside what happened.

`run_all` needs the `conformance` extra and nginx; `predictions` needs only the model. A row
agrees when every field of the Outcome matches; a case the harness could not set up is a row
with the error, never a skipped one.
"""
from __future__ import annotations

import importlib.util
import platform
import shutil
import subprocess
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

from ..render import markdown
from .cases import CASES, Case
from .differential.findings import FINDINGS, FindingRow
from .outcome import Outcome
from .predict import DEPLOYMENTS, GUARDED, predict
from .probe import HarnessError

SERVERS = tuple(DEPLOYMENTS)       # "sdk", "guard" (the Python SDK), "ts" (the TypeScript SDK)
SERVER_COLUMNS = {"sdk": "Python SDK (model: sdk)", "guard": "guard (model: strict)",
                  "ts": "TypeScript SDK (model: sdk-typescript)",
                  **{s: f"{s} (model: {p})" for s, p in GUARDED.items()}}
SERVER_TITLES = {"sdk": "MCP Python SDK + bounded example-style store (model: sdk)",
                 "guard": "MCP Python SDK behind StrictResumptionGuard (model: strict)",
                 "ts": "MCP TypeScript SDK + its example in-memory store, bounded "
                       "(model: sdk-typescript)",
                 **{s: f"MCP Python SDK behind ResumptionGuard deciding with {p} (model: {p})"
                    for s, p in GUARDED.items()}}


class Row(NamedTuple):
    case: str
    server: str
    driver: str
    topology: str
    model: Outcome
    real: Optional[Outcome]
    agree: bool
    differences: List[str]
    evidence: str
    note: str
    seconds: float
    explained: str = ""      # the real server's documented defect behind a disagreement

    @property
    def settled(self) -> bool:
        """The row agrees, or its difference is a documented defect of the real server."""
        return self.agree or bool(self.explained)

    @staticmethod
    def from_dict(data: Dict) -> "Row":
        """A row as `as_dict` wrote it (conformance.json)."""
        fields = dict(data)
        fields.pop("settled", None)
        fields["model"] = Outcome(**fields["model"])
        fields["real"] = Outcome(**fields["real"]) if fields["real"] is not None else None
        return Row(**fields)

    def as_dict(self) -> Dict[str, object]:
        out = dict(self._asdict())
        out["settled"] = self.settled
        out["model"] = self.model.as_dict()
        out["real"] = self.real.as_dict() if self.real is not None else None
        return out


def missing_requirements(servers: Iterable[str] = (), nginx: bool = True,
                         cases: Iterable[str] = (), redis: bool = False) -> List[str]:
    """What the harness needs (for `servers` and `cases`: the `ts` server and the cases driven
    by the TypeScript client need Node; nginx unless `nginx` is False: differential runs route
    requests themselves; with `redis`, redis-server and the `redis` client for a Redis-backed
    fleet) and this machine lacks, one line each."""
    problems = []
    if "ts" in servers or any(CASES[c].driver == "ts_client" for c in cases if c in CASES):
        from .processes import missing_node
        problem = missing_node()
        if problem is not None:
            problems.append(problem)
    if redis:
        from .redis_server import missing_redis
        problem = missing_redis()
        if problem is not None:
            problems.append(problem)
    for module in ("mcp", "uvicorn", "httpx") + (("redis",) if redis else ()):
        if importlib.util.find_spec(module) is None:    # found, not imported (the SDK: 2 s)
            problems.append(f"python package {module!r} is missing: pip install -e "
                            "'.[conformance]'")
    if not nginx:
        return problems
    from .nginx import nginx_binary
    try:
        nginx_binary()
    except RuntimeError as exc:
        problems.append(str(exc))
    return problems


def predictions(cases: Iterable[str], servers: Iterable[str]) -> List[Dict[str, object]]:
    return [{"case": name, "server": server, "model": predict(CASES[name], server).as_dict()}
            for name in cases for server in servers]


def attempt(drill: Callable[[], object]) -> Tuple[Optional[object], str]:
    """Run a drill: (its outcome, its evidence), or (None, why it could not run). A failed
    case is a row that says so; the others still run."""
    try:
        observed = drill()
    except HarnessError as exc:
        return None, f"harness error: {exc}"
    except Exception as exc:   # noqa: BLE001 - any failure of a drill is reported in its row
        return None, f"harness error: {type(exc).__name__}: {exc}"
    return observed.outcome, observed.evidence   # type: ignore[attr-defined]


def run_case(case: Case, server: str, workdir: Path) -> Row:
    from .drills import DRILLS, Env
    from .processes import Processes
    model = predict(case, server)
    started = time.monotonic()
    with Processes(workdir / f"{case.name}-{server}") as procs:
        real, evidence = attempt(lambda: DRILLS[case.name](Env(procs, kind=server)))
    differences = model.differences(real) if real is not None else ["no real outcome"]
    explained = case.defects.get(server, "") if differences and real is not None else ""
    return Row(case.name, server, case.driver, case.topology, model, real, not differences,
               differences, evidence, case.note, round(time.monotonic() - started, 2),
               explained)


def run_all(cases: Iterable[str], servers: Iterable[str], workdir: Optional[Path] = None,
            progress: Optional[Callable[[Row], None]] = None,
            findings: Iterable[str] = (), workers: int = 1) -> Tuple[List[Row], List[FindingRow]]:
    """Every (case, server) pair, in order, then every finding's sequence on each server it
    showed on; logs of every process under `workdir`; `workers` pairs at a time (each on its
    own processes: `parallel.run_units`)."""
    from .differential.findings import run_findings
    from .parallel import run_units
    servers = list(servers)
    own = workdir is None
    root = Path(tempfile.mkdtemp(prefix="mcp-conformance-")) if own else Path(workdir)
    rows: List[Row] = []
    replays: List[FindingRow] = []
    try:
        rows = run_units(run_named_case, [(name, server, root) for name in cases
                                          for server in servers], workers, progress)
        replays = run_findings(findings, servers, root / "findings", workers=workers)
    finally:
        if own and all(r.settled for r in rows) and all(r.agree for r in replays):
            shutil.rmtree(root, ignore_errors=True)
    return rows, replays


def run_named_case(name: str, server: str, workdir: Path) -> Row:
    """`run_case` of the case called `name` (a unit a worker process can be given)."""
    return run_case(CASES[name], server, workdir)


def environment() -> Dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("mcp", "uvicorn", "httpx", "httpx2", "starlette", "sse-starlette"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    versions["node"], versions["@modelcontextprotocol/sdk"] = _node_versions()
    try:
        from .nginx import nginx_binary
        out = subprocess.run([nginx_binary(), "-v"], capture_output=True, text=True, timeout=10)
        versions["nginx"] = (out.stderr or out.stdout).strip().split("/")[-1]
    except (RuntimeError, OSError, subprocess.SubprocessError):
        versions["nginx"] = "not installed"
    return versions


def _node_versions() -> Tuple[str, str]:
    """Node's version and the installed TypeScript SDK's, or "not installed"."""
    import json as _json

    from .processes import TS_DIR
    try:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True,
                              timeout=10).stdout.strip().lstrip("v") or "not installed"
    except (OSError, subprocess.SubprocessError):
        node = "not installed"
    package = TS_DIR / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    try:
        sdk = _json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        sdk = "not installed"
    return node, sdk


def describe(outcome: Optional[Outcome]) -> str:
    """An outcome in one table cell: "409 replay_gap / rejected, client gave_up"."""
    if outcome is None:
        return "-"
    client = "" if outcome.client == "-" else f", client {outcome.client}"
    return f"{outcome.status} {outcome.code} / {outcome.stream}{client}"


def verdict(row: Row) -> str:
    """One row's cell: what the real server did and whether the model said so."""
    if row.agree:
        return f"{describe(row.real)}: agrees"
    if row.explained:
        return (f"{describe(row.real)}: differs, explained (server defect; model "
                f"{describe(row.model)})")
    return f"NO: real {describe(row.real)}, model {describe(row.model)}"


def table(rows: List[Row]) -> str:
    """The model-vs-reality table as Markdown: a row per case, a column per server."""
    servers = list(dict.fromkeys(r.server for r in rows))
    by_case: Dict[str, Dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.server] = r
    header = ["case", "driver / topology"] + [SERVER_COLUMNS[s] for s in servers]
    body = []
    for case, cells in by_case.items():
        first = next(iter(cells.values()))
        body.append([case, f"{first.driver} / {first.topology}"]
                    + [verdict(cells[s]) if s in cells else "-" for s in servers])
    return markdown(("", header, body), with_title=False)


def details(rows, label: Callable[[object], str] = lambda r: f"{r.case} / {r.server}") -> str:
    """The evidence of each row as a Markdown list (any rows with case, seconds, evidence,
    differences, real, explained and note: the session cases' and the stateless ones')."""
    out = []
    for r in rows:
        out.append(f"- **{label(r)}** ({r.seconds:.1f} s): {r.evidence}")
        if r.differences and r.real is not None:
            out.append(f"  - differs: {'; '.join(r.differences)}")
        if r.explained:
            out.append(f"  - explained: {r.explained}")
        if r.note:
            out.append(f"  - note: {r.note}")
    return "\n".join(out)


def findings_table(replays: List[FindingRow]) -> str:
    """The differential findings as Markdown: each with its minimal sequence, what the model
    said, what the real stack did, how it was resolved, and its replay against each server."""
    header = ["finding", "minimal sequence", "the model said", "the real stack did",
              "resolved by", "replayed today"]
    body = []
    for name in dict.fromkeys(r.finding for r in replays):
        finding = FINDINGS[name]
        today = "; ".join(f"{r.server}: {'agrees' if r.agree else 'NO: ' + r.detail}"
                          for r in replays if r.finding == name)
        body.append([f"{name}: {finding.title}", "; ".join(finding.lines()),
                     finding.model_said, finding.real_did,
                     f"{finding.resolution}: {finding.change}", today])
    return markdown(("", header, body), with_title=False)
