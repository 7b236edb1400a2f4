"""The Forecast page's chart: history, actual, forecast and peers, with the Monte-Carlo bands filled behind."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from seqlab.plots.forecast import forecast_window

# Nominal coverage (%) -> fill of the band; the wider band is lighter and drawn first.
BAND_FILLS = {95: "rgba(214, 39, 40, 0.12)", 80: "rgba(214, 39, 40, 0.26)"}


def forecast_with_bands(
    history: pd.Series,
    actual: pd.Series,
    forecasts: dict[str, pd.Series],
    bands: dict[int, tuple[pd.Series, pd.Series]] | None = None,
    unit: str = "",
    title: str = "Forecast from the chosen origin",
) -> go.Figure:
    """``seqlab.plots.forecast.forecast_window`` plus filled prediction bands under every line.

    Args:
        history, actual, forecasts, unit, title: as ``forecast_window`` (the
            first forecast is the model's, the others its peers).
        bands: nominal coverage (80, 95) -> ``(lower, upper)`` over ``actual``'s
            index; each is drawn as a filled area labelled ``95 % band``.
    """
    fig = forecast_window(history, actual, forecasts, unit=unit, title=title)
    lines = list(fig.data)
    areas = []
    for level in sorted(bands or {}, reverse=True):
        lower, upper = bands[level]
        label = f"{level} % band"
        areas.append(go.Scatter(
            x=lower.index, y=lower.values, mode="lines", line=dict(width=0), showlegend=False,
            name=label, legendgroup=label, hovertemplate="%{y:.4g} (lower)",
        ))
        areas.append(go.Scatter(
            x=upper.index, y=upper.values, mode="lines", line=dict(width=0), fill="tonexty",
            fillcolor=BAND_FILLS.get(level, "rgba(214, 39, 40, 0.2)"), name=label, legendgroup=label,
            hovertemplate="%{y:.4g} (upper)",
        ))
    fig.data = ()
    for trace in (*areas, *lines):  # the bands first: every line stays on top of them
        fig.add_trace(trace)
    fig.update_layout(height=460)
    return fig
