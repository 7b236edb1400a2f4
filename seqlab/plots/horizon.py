"""Error by horizon step: how a forecast's error grows with the lead time, beside its baselines."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from seqlab.plots.style import COLORS, EXTRA_COLORS, axis_title, base_layout

# Lead-time units, largest first: the first that the whole horizon spans three of is used.
_TIME_UNITS = (("days", pd.Timedelta(days=1)), ("hours", pd.Timedelta(hours=1)), ("minutes", pd.Timedelta(minutes=1)))


def regular_step(index: pd.Index) -> pd.Timedelta | None:
    """The fixed time between rows of a time index (30 min), ``None`` without one (months vary)."""
    if not isinstance(index, pd.DatetimeIndex) or len(index) < 3:
        return None
    head = index[:100]
    gaps = head[1:] - head[:-1]
    return gaps[0] if (gaps == gaps[0]).all() else None


def lead_times(horizon: int, step: pd.Timedelta | None) -> tuple[list[float], str]:
    """x values for steps ``1..H`` ahead and their axis title: hours ahead, or steps ahead."""
    steps = list(range(1, horizon + 1))
    if step is None:
        return steps, "steps ahead"
    name, unit = next(((n, u) for n, u in _TIME_UNITS if step * horizon >= 3 * u), _TIME_UNITS[-1])
    return [h * (step / unit) for h in steps], f"{name} ahead"


def error_by_step(
    errors: dict[str, list[float]],
    unit: str = "",
    step: pd.Timedelta | None = None,
    metric: str = "MAE",
    title: str | None = None,
) -> go.Figure:
    """Lines of a metric per horizon step, one per forecaster (the first drawn as the model).

    Args:
        errors: label -> ``H`` values (``metrics.json``'s ``per_step`` MAE),
            the model first, then its baselines.
        unit: the target's unit (the y axis).
        step: the time between rows (``regular_step``); x is then in time units.
        metric: the metric's name, for the y axis and the title.
    """
    if not errors:
        raise ValueError("error_by_step needs at least one forecaster's errors.")
    lengths = {len(values) for values in errors.values()}
    if len(lengths) != 1:
        raise ValueError(f"every forecaster needs one value per horizon step; got lengths {sorted(lengths)}.")
    horizon = lengths.pop()
    x, x_title = lead_times(horizon, step)
    palette = [COLORS["model"], COLORS["seasonal"], COLORS["naive"], *EXTRA_COLORS]
    fig = go.Figure()
    for i, (label, values) in enumerate(errors.items()):
        fig.add_trace(
            go.Scatter(
                x=x, y=list(values), name=label, mode="lines+markers",
                line=dict(color=palette[i % len(palette)], width=2.5 if i == 0 else 1.5,
                          dash=None if i == 0 else "dot"),
                marker=dict(size=5),
            )
        )
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=axis_title(f"test {metric}", unit), rangemode="tozero")
    return base_layout(fig, title or f"Error by horizon step: test {metric} (lower is better)", 340)
