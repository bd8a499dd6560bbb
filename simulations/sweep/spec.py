"""Sweep specs (TOML): a base DES config, overrides, a factorial grid, policies, replications.

    base = "../configs/rolling_restart.toml"    # relative to the spec file
    policies = ["naive", "strict"]
    replications = 5
    seed = 7
    [set]                                       # applied to every point
    "timing.duration" = 1800
    [grid]                                      # every combination is a point
    "timing.restart_period" = [150, 300, 600]
    "system.lb" = ["round_robin", "sticky"]
    [deployments.shared]                        # optional: named bundles of settings, swept
    "system.store" = "shared"                   # as one more grid axis, `deployment`
    [deployments.local]                         # (settings that only make sense together)
    "system.store" = "local"

Every point is validated before anything runs: an unknown key, an empty grid or a value of the
wrong type is a `ConfigError` naming it. Every point uses the same replication seeds, so all
policies (and all points) see the same arrivals, calls, drops and restarts.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Tuple

from model import POLICIES, ConfigError

from ..des import config as des_config

_KEYS = ("base", "policies", "replications", "seed", "set", "grid", "title", "deployments")
#: the grid axis the named deployments make
DEPLOYMENT = "deployment"


@dataclass(frozen=True)
class Point:
    """One combination of grid values, with the DES config it gives."""
    values: Tuple[Tuple[str, Any], ...]
    config: des_config.DesConfig

    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values) or "base"


@dataclass(frozen=True)
class SweepSpec:
    path: Path
    title: str
    base: Path
    policies: Tuple[str, ...]
    replications: int
    seed: int
    overrides: Tuple[Tuple[str, Any], ...]
    grid: Tuple[Tuple[str, Tuple[Any, ...]], ...]
    points: Tuple[Point, ...]
    base_config: des_config.DesConfig     # the base with [set] applied, before any grid value
    #: named deployments (the `deployment` axis of the grid): name -> its settings
    deployments: Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...] = ()

    def as_dict(self) -> Dict[str, Any]:
        out = {"spec": str(self.path), "title": self.title, "base": str(self.base),
               "policies": list(self.policies), "replications": self.replications,
               "seed": self.seed, "set": dict(self.overrides),
               "grid": {k: list(v) for k, v in self.grid}}
        if self.deployments:
            out["deployments"] = {name: dict(settings) for name, settings in self.deployments}
        return out


def _deployments(data: Dict[str, Any], overrides: Dict[str, Any],
                 grid: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """The spec's [deployments.NAME] tables, checked: each a non-empty table of settings that
    neither [set] nor the grid also names (which value would win is not for a spec to guess)."""
    found = data.get("deployments", {})
    if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
        raise ConfigError("deployments", "expected tables [deployments.NAME] of "
                                          "\"section.key\" = value")
    if DEPLOYMENT in grid:
        raise ConfigError(f"grid.{DEPLOYMENT}", "is the axis [deployments.NAME] tables make; "
                                                 "name the deployments there")
    for name, settings in found.items():
        if not settings:
            raise ConfigError(f"deployments.{name}", "is empty: name at least one setting")
        for key in settings:
            if key in overrides or key in grid:
                raise ConfigError(f"deployments.{name}.{key}",
                                  f"is also set by {'[set]' if key in overrides else '[grid]'}")
    return found


def _toml_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def load(path: Path) -> SweepSpec:
    """Read and validate a sweep spec; every grid point's config is built and checked."""
    path = Path(path)
    data = des_config.read_toml(path, "sweep spec")
    for key in data:
        if key not in _KEYS:
            raise ConfigError(key, f"unknown key in the sweep spec (known: {', '.join(_KEYS)})")
    if "base" not in data or not isinstance(data["base"], str):
        raise ConfigError("base", "the sweep spec needs base = \"path/to/config.toml\"")
    base = (path.parent / data["base"]).resolve()
    try:
        des_config.read_toml(base, "base config")
    except ConfigError as exc:
        raise ConfigError("base", f"{exc} (the spec's base = {data['base']!r})") from None
    policies = data.get("policies", list(POLICIES))
    if not isinstance(policies, list) or not policies or \
            not all(isinstance(p, str) for p in policies):
        raise ConfigError("policies", f"a non-empty list drawn from {', '.join(POLICIES)} "
                                      "(a row may name its client: \"sdk+spec\")")
    for row in policies:
        try:
            des_config.parse_row(row)
        except ConfigError as exc:
            raise ConfigError("policies", exc.problem) from None
    # a sweep compares rows point by point; its baseline only has to be one of them
    baseline = "strict" if "strict" in policies else policies[0]
    for key in ("replications", "seed"):
        value = data.get(key, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < (key == "replications"):
            raise ConfigError(key, f"expected an integer >= {int(key == 'replications')}, "
                                   f"got {value!r}")
    overrides = data.get("set", {})
    grid = data.get("grid", {})
    if not isinstance(overrides, dict) or not isinstance(grid, dict):
        raise ConfigError("grid", "[set] and [grid] must be tables of \"section.key\" = value")
    deployments = _deployments(data, overrides, grid)
    if not grid and not deployments:
        raise ConfigError("grid", "the grid is empty: name at least one key with a list of values")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"grid.{key}", "needs a non-empty list of values")
    try:
        base_config = des_config.load(
            base, [f"{k}={_toml_literal(v)}" for k, v in overrides.items()],
            replications=data.get("replications", 1), seed=data.get("seed", 1),
            policies=policies, baseline=baseline)
    except ConfigError as exc:
        raise ConfigError(exc.key, f"{exc.problem} (the base with [set] applied)") from None
    axes = ({DEPLOYMENT: list(deployments)} if deployments else {}) | grid
    points = []
    for combo in itertools.product(*axes.values()):
        values = tuple(zip(axes.keys(), combo))
        named = deployments[combo[0]] if deployments else {}
        chosen = list(overrides.items()) + list(named.items()) + \
            [(k, v) for k, v in values if k != DEPLOYMENT or not deployments]
        settings = [f"{k}={_toml_literal(v)}" for k, v in chosen]
        try:
            config = des_config.load(base, settings, replications=data.get("replications", 1),
                                     seed=data.get("seed", 1), policies=policies,
                                     baseline=baseline)
        except ConfigError as exc:
            where = ", ".join(f"{k}={v!r}" for k, v in values)
            raise ConfigError(exc.key, f"{exc.problem} (grid point {where})") from None
        points.append(Point(values, config))
    return SweepSpec(path, data.get("title", path.stem), base, tuple(policies),
                     data.get("replications", 1), data.get("seed", 1),
                     tuple(overrides.items()), tuple((k, tuple(v)) for k, v in axes.items()),
                     tuple(points), base_config,
                     tuple((name, tuple(v.items())) for name, v in deployments.items()))


def tasks(spec: SweepSpec) -> List[Tuple[Point, str, int]]:
    """Every (point, policy, replication) of the sweep, in a fixed order."""
    return [(point, policy, r) for point in spec.points for r in range(spec.replications)
            for policy in spec.policies]
