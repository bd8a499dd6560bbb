"""Sequence diagrams of counterexample traces (matplotlib): one lane per client, the load
balancer, each instance, the session store and the replay buffers; time flows down, one row
per step; the step where a property is violated is drawn in red."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

from matplotlib.figure import Figure

from model import findings_of
from model import history as h
from model.event_ids import render

from ..render import describe_action
from .scope import Scope
from .trace import replay

RED, GREY, BLUE = "#c0392b", "#7f8c8d", "#2c3e50"


def _lanes(scope: Scope) -> Dict[str, float]:
    names = [f"c{c}" for c in range(scope.system.clients)] + ["LB"] + \
        [f"i{i}" for i in range(scope.system.instances)] + ["store", "buffer"]
    return {name: float(x) for x, name in enumerate(names)}


def _arrow(ax, x0: float, x1: float, y: float, text: str, color: str) -> None:
    ax.annotate("", xy=(x1, y), xytext=(x0, y),
                arrowprops=dict(arrowstyle="->", color=color, lw=1.4))
    ax.text((x0 + x1) / 2, y - 0.12, text, ha="center", va="bottom", fontsize=7, color=color)


def _note(ax, x: float, y: float, text: str, color: str) -> None:
    ax.text(x, y, text, ha="center", va="center", fontsize=7, color=color,
            bbox=dict(boxstyle="round,pad=0.2", fc="white", ec=color, lw=0.8))


def step_labels(events) -> List[str]:
    """Every text `_draw_step` puts on a step (tests compare it with the narrative)."""
    ax = Figure().subplots()
    lanes = {name: float(i) for i, name in enumerate(
        ["LB", "store", "buffer"] + [f"c{c}" for c in range(8)] + [f"i{i}" for i in range(8)])}
    _draw_step(ax, lanes, 1.0, None, events, False)
    return [text.get_text() for text in ax.texts]


def _draw_step(ax, lanes, y: float, action, events, bad: bool) -> None:
    color = RED if bad else BLUE
    for event in events:
        match event:
            case h.Initialized():
                _arrow(ax, lanes[f"c{event.client}"], lanes[f"i{event.instance}"], y,
                       f"initialize -> S{event.token}", color)
            case h.Decided():
                _arrow(ax, lanes[f"c{event.client}"], lanes[f"i{event.instance}"], y - 0.25,
                       f"GET S{event.token} {render(event.cursor)}", GREY)
                _arrow(ax, lanes[f"i{event.instance}"], lanes[f"c{event.client}"], y + 0.2,
                       f"{event.status} {event.code} ({event.effect})", color)
            case h.Emitted():
                text = f"{render(event.wire)} = c{event.owner}:m{event.msg}"
                if event.dropped is not None:      # the narrative's "buffer full" line, drawn
                    text += f"\nfull: drops {render(event.dropped)}, floor rises"
                _note(ax, lanes["buffer"], y, text, RED if event.dropped is not None else GREY)
                for c in event.live_to:
                    _arrow(ax, lanes[f"i{event.instance}"], lanes[f"c{c}"], y + 0.25, "live",
                           GREY)
            case h.Applied():
                _note(ax, lanes[f"c{event.client}"], y,
                      f"applies c{event.owner}:m{event.msg} ({render(event.wire)})", color)
            case h.InstanceChanged():
                _note(ax, lanes[f"i{event.instance}"], y, event.what, color)
            case h.Recreated():
                _note(ax, lanes["store"], y, f"S{event.token} gen {event.generation}", color)
            case h.SessionEvicted():
                _note(ax, lanes["store"], y, f"evict S{event.token}", color)
            case h.BufferCompacted():
                _note(ax, lanes["buffer"], y, f"drop {render(event.dropped)}", color)
            case h.ClientRestarted() | h.CursorReplaced() | h.CursorPersisted():
                label = {h.ClientRestarted: "restart", h.CursorReplaced: "foreign cursor",
                         h.CursorPersisted: "persist"}[type(event)]
                _note(ax, lanes[f"c{event.client}"], y, f"{label} {render(event.wire)}", color)
            case h.StreamClosed() if event.reason in ("network", "idle_timeout"):
                _arrow(ax, lanes["LB"], lanes[f"c{event.client}"], y, f"close ({event.reason})",
                       GREY)


def sequence_diagram(scope: Scope, policy, actions: List, title: str,
                     path: Path) -> Tuple[Path, Path]:
    """Draw the trace; writes `path`.png and `path`.svg and returns both paths."""
    lanes = _lanes(scope)
    steps = replay(scope, policy, actions)
    fig = Figure(figsize=(1.6 * len(lanes) + 2.5, 0.75 * len(steps) + 1.6))
    ax = fig.subplots()
    for name, x in lanes.items():
        ax.plot([x, x], [0.2, len(steps) + 0.8], color="#d0d3d4", lw=1, zorder=0)
        ax.text(x, 0.0, name, ha="center", va="bottom", fontsize=9, fontweight="bold")
    for y, (action, events) in enumerate(steps, start=1):
        violated = sorted({f.name for e in events for f in findings_of(e) if f.name != "note"})
        bad = bool(violated)
        label = f"{y}. {describe_action(action)}" + (f"\n{', '.join(violated)}" if bad else "")
        ax.text(-0.6, y, label, ha="right", va="center", fontsize=7,
                color=RED if bad else "black")
        _draw_step(ax, lanes, float(y), action, events, bad)
    ax.set_xlim(-3.6, len(lanes) - 0.4)
    ax.set_ylim(len(steps) + 1, -0.4)
    ax.axis("off")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    png, svg = path.with_suffix(".png"), path.with_suffix(".svg")
    fig.savefig(png, dpi=130)
    fig.savefig(svg)
    return png, svg
