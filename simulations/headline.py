"""The README's headline sentences, generated from committed sweep folders (a test keeps them
equal). One bullet per deployment (facet) at the sweep's harshest point, never an average of
deployments: who duplicates, who stalls, and what the others pay for it."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Sequence

from . import figures, render
from .sweep.results import load_results


def _share(point: dict) -> str:
    return render.interval(point, 100, unit="%")


def _facet_text(facet: Dict[str, object]) -> str:
    return ", ".join(f"{k[len('param.'):].split('.')[-1]} {v}" for k, v in facet.items())


def sweep_lines(folder: Path) -> List[str]:
    """Bullets for one sweep: per facet, at the first value of the swept parameter."""
    frame = load_results(folder)
    manifest = frame.attrs["manifest"]
    params = [c for c in frame.columns if c.startswith("param.")]
    x = figures.x_params(frame, params)[0]
    first = frame[x].iloc[0]
    label = x[len("param."):].split(".")[-1]
    reps = manifest["config"]["replications"]
    minutes = manifest.get("base_config", {}).get("timing", {}).get("duration", 0) / 60
    lines = [f"**{manifest['config']['title']}** (`{folder}`, manifest "
             f"`{figures.manifest_hash(folder)}`; {figures.deployment_line(manifest)}; "
             f"{reps} replications of {minutes:g} min per point), at {label} = {first}:"]
    for facet in figures.facets(frame, params, x):
        panels = {key: figures.panel_points(frame, x, facet, kind, cols, denominator)
                  for key, _, kind, cols, denominator in figures.PANELS}
        at = {key: {p: ps[0] for p, ps in points.items()} for key, points in panels.items()}
        bad, clean = [], []
        for policy in at["duplicate_delivery"]:
            dup, stall = at["duplicate_delivery"][policy], at["stall"][policy]
            parts = [f"duplicates in {_share(dup)}" if not dup["zero"] else "",
                     f"stalls in {_share(stall)}" if not stall["zero"] else ""]
            parts = [p for p in parts if p]
            if parts:
                bad.append(f"`{policy}` " + " and ".join(parts))
            else:
                clean.append(policy)
        bound = max((at[k][p]["hi"] or 0) for k in ("duplicate_delivery", "stall")
                    for p in clean) if clean else 0
        cost = ", ".join(f"`{p}` {at['reinits'][p]['mean']:.1f} / "
                         f"{100 * at['abandoned'][p]['mean']:.1f}%" for p in at["reinits"])
        text = f"- {_facet_text(facet) or 'every point'}: " + ("; ".join(bad) or "no policy "
                                                               "duplicates or stalls")
        if clean:
            text += (f"; {', '.join(f'`{p}`' for p in clean)}: neither in any replication "
                     f"(each share < {100 * bound:.2f}%)")
        lines.append(text + f". Cost (means: re-initializations per session-hour / sessions "
                            f"abandoned): {cost}.")
    return lines


def headline_markdown(folders: Sequence[Path]) -> str:
    out: List[str] = []
    for folder in folders:
        out += sweep_lines(Path(folder)) + [""]
    return "\n".join(out).rstrip() + "\n" \
        "\nShares are % of sessions, mean over replications with a 95% t-interval; " \
        "`0 (< x)` and \"< x\" are one-sided 95% upper bounds where no replication had one."


HEADLINE_SWEEPS = (Path("results/sweeps/restart_frequency"),
                   Path("results/sweeps/buffer_capacity"))
