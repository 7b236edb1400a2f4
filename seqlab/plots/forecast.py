"""One forecast window: the history the model saw, the actual future, the forecasts."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from seqlab.plots.style import COLORS, EXTRA_COLORS, axis_title, base_layout


def forecast_window(
    history: pd.Series,
    actual: pd.Series,
    forecasts: dict[str, pd.Series],
    unit: str = "",
    title: str = "Forecast versus actual",
    hidden: tuple[str, ...] = (),
    styles: dict[str, dict] | None = None,
) -> go.Figure:
    """History window + actual future + one line per forecast, on a time axis.

    Args:
        history: the target over the lookback window the model saw (index = time).
        actual: the target over the forecast horizon (index = time).
        forecasts: legend name -> forecast over the same index as ``actual``;
            the first is drawn strongest (the model), the rest dashed.
        unit: the target's unit, for the y-axis.
        hidden: forecast names to start hidden (click the legend to show).
        styles: legend name -> plotly ``line`` dict overriding the default style
            (``width=0``: markers only, in the line's colour).

    Returns:
        A figure with the forecast horizon shaded and the forecast origin marked.
    """
    styles = styles or {}
    name = actual.name or history.name or "value"
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=history.index, y=history.values, name="history (model input)", mode="lines",
            line=dict(color=COLORS["history"], width=1.5),
        )
    )
    # Join the actual line to the last observed value so the series reads continuous.
    joined = pd.concat([history.iloc[-1:], actual]) if len(history) else actual
    fig.add_trace(
        go.Scatter(x=joined.index, y=joined.values, name="actual", mode="lines",
                   line=dict(color=COLORS["actual"], width=2.5))
    )
    defaults = [
        dict(color=COLORS["model"], width=2.5),
        dict(color=COLORS["seasonal"], width=1.8, dash="dash"),
        dict(color=COLORS["naive"], width=1.5, dash="dot"),
    ]
    for i, (label, series) in enumerate(forecasts.items()):
        line = styles.get(label) or (defaults[i] if i < len(defaults) else
                                     dict(color=EXTRA_COLORS[i % len(EXTRA_COLORS)], width=1.5, dash="dashdot"))
        # A style with width 0 draws markers only (e.g. values that should sit on another line).
        markers = line.get("width", 1) == 0
        fig.add_trace(
            go.Scatter(
                x=series.index, y=series.values, name=label, mode="markers" if markers else "lines",
                line=None if markers else line,
                marker=dict(color=line.get("color"), size=5) if markers else None,
                visible="legendonly" if label in hidden else True,
            )
        )
    if len(actual):
        fig.add_vrect(
            x0=actual.index[0], x1=actual.index[-1], fillcolor="#999999", opacity=0.08,
            line_width=0, layer="below",
        )
        fig.add_annotation(
            x=actual.index[0], y=1.0, xref="x", yref="paper", yanchor="bottom", xanchor="left",
            text="forecast horizon →", showarrow=False, font=dict(color="#555555"),
        )
    time_axis = isinstance(actual.index, pd.DatetimeIndex)
    fig.update_xaxes(title_text="time" if time_axis else axis_title(actual.index.name or "step", None))
    fig.update_yaxes(title_text=axis_title(str(name), unit))
    return base_layout(fig, title, 420)
