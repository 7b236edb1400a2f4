"""A sweep: one spec trained at every point of a grid of settings, each run named by what sets it apart.

    --grid units=16,32 --grid learning_rate=1e-3,3e-3  ->  4 specs, named "units=16, learning_rate=0.001", ...

``--budget`` settings (``epochs=N``, ``steps=N``) apply to every point alike. The runs go through a
``JobManager`` and so its executor (in this process, or a Ray cluster); ``leaderboard`` orders them by
the task's headline test metric, best first.
"""

from __future__ import annotations

import itertools

from seqlab.run_name import MAX_LENGTH
from seqlab.tasks import get_metric, ordered_metrics
from seqlab.training.spec import ExperimentSpec, parse_value

MAX_POINTS = 64  # a grid is multiplied out: a typo of one more value must not queue hundreds of trainings


def parse_grid(items: list[str]) -> dict[str, list]:
    """``["units=16,32", ...]`` -> ``{"units": [16, 32], ...}`` (values parsed as ``--set`` parses them)."""
    grid: dict[str, list] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not key or not values.strip():
            raise ValueError(f"--grid expects KEY=V1,V2,..., got {item!r}.")
        if key in grid:
            raise ValueError(f"--grid {key} is given twice; list all its values once: --grid {key}=V1,V2.")
        grid[key] = [parse_value(v.strip()) for v in values.split(",")]
    return grid


def grid_specs(base: ExperimentSpec, grid: dict[str, list], budget: dict | None = None) -> list[tuple]:
    """``(spec, name)`` for each point of ``grid`` over ``base`` (checked, ``budget`` applied to all), named by
    the settings that vary across the grid."""
    points = list(itertools.product(*grid.values()))
    if len(points) > MAX_POINTS:
        raise ValueError(f"The grid has {len(points)} points, more than {MAX_POINTS}; give fewer values.")
    varying = [key for key, values in grid.items() if len(set(map(repr, values))) > 1]
    found = []
    for point in points:
        setting = dict(zip(grid, point))
        spec = base.with_overrides({**(budget or {}), **setting}).resolved()
        name = ", ".join(f"{key}={setting[key]}" for key in varying) or "sweep"
        found.append((spec, name[:MAX_LENGTH]))
    return found


def leaderboard(results: list[dict], task: str) -> list[dict]:
    """``results`` (``name``, ``status``, ``metrics``) best first by ``task``'s headline metric; runs without
    it (failed, cancelled before training) last."""
    keys = ordered_metrics({k for r in results for k in r["metrics"]}, task)
    if not keys:
        return list(results)
    headline = keys[0]
    sign = -1 if get_metric(headline).higher_is_better else 1

    def rank(result):
        value = result["metrics"].get(headline)
        return (value is None or value != value, sign * value if value is not None else 0.0)

    return sorted(results, key=rank)
