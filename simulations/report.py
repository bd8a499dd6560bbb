"""`python -m simulations report DIR`: a Markdown report of a results folder, ready to paste.

DIR is a DES comparison (`summary.json`, from `run`) or a sweep (`results.csv`, from `sweep`);
both have a `manifest.json`. The report states the question, the configuration, the rates with
their intervals per policy, the figures found in `DIR/figures`, the explorer's verdicts in the
default scope, and the provenance (manifest hash, code version, packages).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

from model import COSTS, POLICIES, VIOLATIONS
from model import properties
from model.properties import BY_NAME, LABELS, VERDICT_PROPERTIES

from .des.stats import wilson
from .figures import manifest_hash
from .provenance import write_atomic

QUESTION = (
    "When must an MCP server refuse to resume a stream? A resumption (`GET` + `Mcp-Session-Id`"
    " + `Last-Event-ID`) can be well formed and still unresumable: the session may be gone, the"
    " cursor may belong to another session, the session may have been recreated since the "
    "cursor was issued, or the buffer may no longer hold it. This report compares how "
    "resumption-validation policies fare on the properties that matter: duplicate delivery, "
    "duplicate side effects, silent loss, cross-session delivery, stalls and needless "
    "re-initialization.")


def _interval(i: dict, digits: int = 1) -> str:
    if i.get("lo") is None:
        return f"{i['mean']:.{digits}f}"
    return f"{i['mean']:.{digits}f} [{i['lo']:.{digits}f}, {i['hi']:.{digits}f}]"


def _pct(w: dict) -> str:
    return f"{100 * w['p']:.1f}% [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}]"


def _table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _config_table(config: dict) -> str:
    system = config.get("system") or config.get("base_config", {}).get("system", {})
    timing = config.get("timing") or config.get("base_config", {}).get("timing", {})
    rows = [[f"system.{k}", f"`{v}`"] for k, v in system.items()]
    rows += [[f"timing.{k}", f"`{v}`"] for k, v in timing.items()]
    return _table(["key", "value"], rows)


def _des_section(folder: Path) -> List[str]:
    data = json.loads((folder / "summary.json").read_text())
    summary, config = data["summary"], data["config"]
    policies = [p for p in config["run"]["policies"] if p in summary]
    out = ["## Configuration", "", f"Client profile `{config['client']['profile']}`, "
           f"{config['run']['replications']} replications, seed {config['run']['seed']}; "
           "common random numbers across policies.", "", _config_table(config), "",
           "## Rates (95% intervals)", "",
           "Violations per 1,000 resumptions: mean over replications with a Student "
           "t-interval.", ""]
    out.append(_table(["policy", "resumptions"] + [LABELS[n] for n in VIOLATIONS],
                      [[p, _interval(summary[p]["resumptions"], 0)] +
                       [_interval(summary[p]["per_1000_resumptions"][n]) for n in VIOLATIONS]
                       for p in policies]))
    out += ["", "Share of sessions that met each violation (pooled, Wilson interval):", ""]
    out.append(_table(["policy", "sessions"] + [LABELS[n] for n in VIOLATIONS],
                      [[p, str(summary[p]["sessions"])] +
                       [_pct(summary[p]["sessions_affected"][n]) for n in VIOLATIONS]
                       for p in policies]))
    baseline = config["run"]["baseline"]
    paired = [p for p in policies if "paired_vs_baseline" in summary[p]]
    if paired:
        out += ["", f"Paired difference against `{baseline}` per 1,000 resumptions (same "
                    "replication seeds):", ""]
        out.append(_table(["policy"] + [LABELS[n] for n in VIOLATIONS],
                          [[p] + [_interval(summary[p]["paired_vs_baseline"][n])
                                  for n in VIOLATIONS] for p in paired]))
    out += ["", "Cost of safety, per session-hour (mean with a t-interval; the last column "
                "pools sessions):", ""]
    out.append(_table(["policy", "stall s"] + [LABELS[n] for n in COSTS]
                      + ["sessions failed or gave up"],
                      [[p, _interval(summary[p]["stall_seconds_per_session_hour"])]
                       + [_interval(summary[p]["costs_per_session_hour"][n], 2) for n in COSTS]
                       + [_pct(summary[p]["sessions_failed_or_gave_up"])] for p in policies]))
    out += ["", properties.legend(COSTS)]
    return out


def _sweep_section(folder: Path, manifest: dict) -> List[str]:
    import pandas as pd
    frame = pd.read_csv(folder / "results.csv")
    spec = manifest["config"]
    out = ["## Configuration", "", f"Sweep `{spec['title']}` over "
           + ", ".join(f"`{k}` in {v}" for k, v in spec["grid"].items())
           + f"; overrides {spec['set'] or 'none'}; {spec['replications']} replications per "
           f"point, seed {spec['seed']}.", "", "Base deployment:", "",
           _config_table(manifest), "", "## Rates (95% Wilson intervals)", ""]
    params = [c for c in frame.columns if c.startswith("param.")]
    for name in ("duplicate_delivery", "stall"):
        out += [f"Share of sessions with a {name.replace('_', ' ')}, by "
                f"{', '.join(p[len('param.'):] for p in params)}:", ""]
        groups = frame.groupby(params + ["policy"], sort=True)
        table = groups[[f"sessions_affected.{name}", "sessions"]].sum()
        rows = []
        for key, row in table.iterrows():
            key = key if isinstance(key, tuple) else (key,)
            rows.append([str(k) for k in key] +
                        [_pct(wilson(int(row.iloc[0]), int(row.iloc[1])))])
        out += [_table([p[len("param."):] for p in params] + ["policy", "sessions affected"],
                       rows), ""]
    return out


def _explorer_section() -> List[str]:
    from .explore.scope import Scope
    from .explore.search import explore
    judged = [n for n in VERDICT_PROPERTIES if BY_NAME[n].judged]
    rows = []
    for policy in POLICIES:
        verdicts = explore(Scope(), policy).verdicts()
        rows.append([policy] + [v.verdict if v.finding is None else
                                f"**{v.verdict}** ({v.trace_length} steps)"
                                for v in (verdicts[n] for n in judged)])
    scope = Scope()
    budgets = ", ".join(f"{k}={v}" for k, v in scope.as_dict().items() if k != "system" and v)
    return ["## Explorer verdicts (every interleaving, default scope)", "",
            "Two clients, one instance, shared store and retained shared buffer keyed by event "
            f"id, fleet-wide id counter; budgets {budgets}. A violation comes with its shortest "
            "length; replay it with `python -m simulations explore --policy P`. Every deployment "
            "the verification matrix covers: `results/verification/matrix/VERIFY.md`.", "",
            _table(["policy"] + [LABELS[n] for n in judged], rows),
            "", properties.legend(judged), ""]


def write_report(folder: Path, explorer: bool = True) -> Path:
    """Write `folder/REPORT.md` and return its path."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    digest = manifest_hash(folder)
    out = [f"# Resumption policies: {folder.name}", "", "## The question", "", QUESTION, ""]
    if (folder / "summary.json").is_file():
        out += _des_section(folder)
    else:
        out += _sweep_section(folder, manifest)
    figures = sorted((folder / "figures").glob("*.png")) if (folder / "figures").is_dir() else []
    if figures:
        out += ["", "## Figures", ""]
        out += [f"![{png.stem}](figures/{png.name})" for png in figures]
    out += [""] + (_explorer_section() if explorer else [])
    code = manifest.get("code", {})
    packages = ", ".join(f"{k} {v}" for k, v in manifest.get("packages", {}).items())
    out += ["## Provenance", "", f"- results: `{folder}` (manifest sha256 `{digest}`)",
            f"- command: `python -m simulations {manifest.get('command', '?')}`",
            f"- code: commit `{code.get('commit')}`, uncommitted changes: {code.get('dirty')}",
            f"- packages: {packages}",
            f"- cite as: `{folder}/REPORT.md` with manifest `{digest}`", ""]
    path = folder / "REPORT.md"
    write_atomic(path, "\n".join(out))
    return path


def describe_folder(folder: Path) -> Optional[str]:
    """None if `folder` can be reported on, else what is missing."""
    if not (folder / "manifest.json").is_file():
        return f"{folder}/manifest.json is missing"
    if not ((folder / "summary.json").is_file() or (folder / "results.csv").is_file()):
        return f"{folder} has neither summary.json (a `run`) nor results.csv (a `sweep`)"
    return None
