"""Figures of a recurrent layer's insides: state and gate heatmaps, trajectories, gradients in time.

Data in (NumPy arrays from ``seqlab.inspect``), ``go.Figure`` out. Time runs
along x in every figure (timestamps, or the step number t), so the pictures of
one trace line up under each other.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from seqlab.plots.style import COLORS, EXTRA_COLORS, base_layout
from seqlab.plots.training import batch_epochs, label_log_ticks

MAX_INPUT_LINES = 4  # more input features than this are drawn as one heatmap strip
DIVERGING = "RdBu_r"  # negative blue, positive red, 0 white: tanh-valued states
SEQUENTIAL = "Viridis"  # sigmoid gates in [0, 1]

# internal name -> (what it is, range): "gate" in [0, 1], "tanh" in [-1, 1], "free" unbounded.
INTERNALS: dict[str, tuple[str, str]] = {
    "i": ("input gate iₜ", "gate"),
    "f": ("forget gate fₜ", "gate"),
    "o": ("output gate oₜ", "gate"),
    "c_tilde": ("candidate c̃ₜ", "tanh"),
    "c": ("cell state cₜ", "free"),
    "h": ("hidden state hₜ", "tanh"),
    "z": ("update gate zₜ", "gate"),
    "r": ("reset gate rₜ", "gate"),
    "h_tilde": ("candidate h̃ₜ", "tanh"),
    "pre_activation": ("pre-activation B zₜ₋₁ + V xₜ + b", "free"),
    "delta": ("change of the state", "free"),  # an edited input's state minus the original's
    "magnitude": ("magnitude |xₜ|", "nonnegative"),  # a complex state's size (a state-space layer's)
}
TICK_FONT = dict(size=13)  # readable from a few metres, not only at a desk
# The notes call the Elman and reservoir state z_t.
CELL_NAMES: dict[tuple[str, str], str] = {
    ("SimpleRNNCell", "h"): "hidden state zₜ",
    ("ESNCell", "h"): "reservoir state zₜ",
    ("ESNCell", "h_tilde"): "reservoir update z̃ₜ",
}


def internal_label(name: str, kind: str = "") -> str:
    """``"f"`` -> ``"forget gate fₜ"``; Elman and ESN states read ``zₜ`` as in the notes."""
    return CELL_NAMES.get((kind, name)) or INTERNALS.get(name, (name.replace("_", " "), ""))[0]


def value_range(name: str, values: np.ndarray | None = None) -> tuple[float, float]:
    """Colour range of an internal: gates [0, 1], tanh values [-1, 1], else symmetric around 0."""
    kind = INTERNALS.get(name, ("", "free"))[1]
    if kind == "gate":
        return 0.0, 1.0
    if kind == "tanh" and (values is None or np.nanmax(np.abs(values), initial=0.0) <= 1.0 + 1e-6):
        return -1.0, 1.0
    bound = float(np.nanmax(np.abs(values), initial=0.0)) if values is not None else 1.0
    bound = bound if bound > 0 else 1.0
    return (0.0, bound) if kind == "nonnegative" else (-bound, bound)


def time_ticks(time: Sequence) -> tuple[np.ndarray, dict]:
    """x values and axis settings: timestamps and numbers as they are, text labels as ticks on 1..T."""
    values = list(time)
    if values and all(isinstance(v, str) for v in values):
        x = np.arange(1, len(values) + 1)
        step = max(1, len(values) // 40)
        # Upright: rotated tokens (one character each, often) cannot be read.
        return x, dict(tickmode="array", tickvals=x[::step], ticktext=values[::step], tickangle=0)
    # Timestamps and numbers: a few upright labels, never slanted ones running into each other.
    return np.asarray(pd.Index(values)), dict(tickangle=0, nticks=6)


def _unit_labels(unit_ids: Sequence[int], unit: str = "unit") -> list[str]:
    return [f"{unit} {int(u)}" for u in unit_ids]


def _add_inputs(fig: go.Figure, x: np.ndarray, inputs: dict[str, np.ndarray], rows: int) -> None:
    """The inputs along time, one small line row per feature (or one heatmap for many features)."""
    names = list(inputs)
    if len(names) > MAX_INPUT_LINES:
        z = np.stack([np.asarray(inputs[n], dtype="float64") for n in names])  # (F, T)
        fig.add_trace(
            go.Heatmap(z=z, x=x, y=names, colorscale="Greys", showscale=False,
                       hovertemplate="%{x}<br>%{y}: %{z:.3g}<extra></extra>"),
            row=1, col=1,
        )
        fig.update_yaxes(autorange="reversed", title_text="input", row=1, col=1)
        return
    for i, name in enumerate(names, start=1):
        color = COLORS["actual"] if i == 1 else EXTRA_COLORS[(i - 2) % len(EXTRA_COLORS)]
        fig.add_trace(
            go.Scatter(x=x, y=np.asarray(inputs[name], dtype="float64"), name=name, mode="lines",
                       line=dict(color=color, width=1.5), showlegend=False,
                       hovertemplate=f"{name}: %{{y:.4g}}<extra></extra>"),
            row=i, col=1,
        )
        fig.update_yaxes(nticks=3, row=i, col=1)
        # The name inside the row, top left: rotated titles of short rows run into each other.
        fig.add_annotation(text=name, xref="x domain", yref="y domain", x=0.0, y=1.0, xanchor="left",
                           yanchor="bottom", showarrow=False, font=dict(size=11, color="#444444"), row=i, col=1)


def state_heatmap(
    values: np.ndarray,
    time: Sequence,
    unit_ids: Sequence[int],
    inputs: dict[str, np.ndarray] | None = None,
    name: str = "h",
    kind: str = "",
    total_units: int | None = None,
    title: str = "Hidden state over time",
    time_title: str = "time step t",
    unit: str = "unit",
) -> go.Figure:
    """A state (or any internal) as a heatmap, units on y and time on x, with the inputs above it.

    Args:
        values: ``(T, k)``, the internal for the ``k`` units shown.
        time: ``T`` x values (timestamps, step numbers or token strings).
        unit_ids: the ``k`` unit indices (the y labels), e.g. the most active units first.
        inputs: axis title (``"Demand (GW)"``) -> ``(T,)`` input values, drawn above,
            sharing the time axis; ``None``: the heatmap alone.
        name: the internal's name (``"h"``, ``"f"``, ...): its colour range and colour-bar title.
        kind: the cell class (``"ESNCell"`` calls the state zₜ).
        total_units: the layer's size, to say "16 of 64 units" on the y axis.
        unit: what a row is (``"unit"``; a state-space layer's rows are its modes, ``"mode"``).
    """
    values = np.asarray(values, dtype="float64")
    x, xaxis = time_ticks(time)
    inputs = inputs or {}
    input_rows = (1 if len(inputs) > MAX_INPUT_LINES else len(inputs)) if inputs else 0
    rows = input_rows + 1
    heat_share = 0.7 if input_rows else 1.0
    heights = [(1 - heat_share) / input_rows] * input_rows + [heat_share] if input_rows else [1.0]
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.03, row_heights=heights)
    if inputs:
        _add_inputs(fig, x, inputs, rows)
    zmin, zmax = value_range(name, values)
    label = internal_label(name, kind)
    fig.add_trace(
        go.Heatmap(
            z=values.T, x=x, y=_unit_labels(unit_ids, unit), zmin=zmin, zmax=zmax,
            colorscale=SEQUENTIAL if INTERNALS.get(name, ("", ""))[1] in ("gate", "nonnegative") else DIVERGING,
            colorbar=dict(title=dict(text=label, side="right"), len=heat_share, y=0, yanchor="bottom",
                          thickness=14),
            hovertemplate="%{x}<br>%{y}: %{z:.3f}<extra></extra>",
        ),
        row=rows, col=1,
    )
    shown = len(unit_ids)
    of = f" ({shown} of {total_units})" if total_units and total_units > shown else ""
    fig.update_yaxes(title_text=f"{unit}{of}", autorange="reversed", row=rows, col=1,
                     showticklabels=shown <= 40, dtick=1)  # dtick: every unit named, none skipped
    fig.update_xaxes(title_text=time_title, row=rows, col=1, **xaxis)
    height = 120 + 18 * min(max(shown, 8), 48) + 80 * input_rows + (60 if input_rows else 0)
    fig = base_layout(fig, title, max(height, 300))
    fig.update_layout(hovermode="closest", margin=dict(l=80, r=20, t=50, b=50))
    fig.update_xaxes(tickfont=TICK_FONT)
    fig.update_yaxes(tickfont=TICK_FONT)
    return fig


def gate_heatmaps(
    gates: dict[str, np.ndarray],
    time: Sequence,
    unit_ids: Sequence[int],
    kind: str = "",
    total_units: int | None = None,
    title: str = "Gates over time",
    time_title: str = "time step t",
) -> go.Figure:
    """One heatmap per gate (units on y), stacked on a shared time axis.

    Gates in [0, 1] (σ) share one colour bar; tanh-valued candidates and
    unbounded values get a second, diverging one.
    """
    names = list(gates)
    x, xaxis = time_ticks(time)
    titles = [internal_label(n, kind) for n in names]
    fig = make_subplots(rows=len(names), cols=1, shared_xaxes=True, vertical_spacing=0.06, subplot_titles=titles)
    gate_bar = diverging_bar = False
    n = len(names)
    for row, name in enumerate(names, start=1):
        values = np.asarray(gates[name], dtype="float64")
        zmin, zmax = value_range(name, values)
        is_gate = INTERNALS.get(name, ("", ""))[1] == "gate"
        axis = "coloraxis" if is_gate else "coloraxis2"
        fig.add_trace(
            go.Heatmap(z=values.T, x=x, y=_unit_labels(unit_ids), coloraxis=axis,
                       hovertemplate="%{x}<br>%{y}: %{z:.3f}<extra>" + titles[row - 1] + "</extra>"),
            row=row, col=1,
        )
        fig.update_yaxes(autorange="reversed", showticklabels=len(unit_ids) <= 24, dtick=1, row=row, col=1)
        if is_gate:
            gate_bar = True
        else:
            diverging_bar = True
            fig.update_layout(coloraxis2=dict(cmin=zmin, cmax=zmax, colorscale=DIVERGING))
    both = gate_bar and diverging_bar
    fig.update_layout(
        coloraxis=dict(cmin=0, cmax=1, colorscale=SEQUENTIAL, showscale=gate_bar,
                       colorbar=dict(title=dict(text="gate value σ (0–1)", side="right"), thickness=14,
                                     len=0.48 if both else 1.0, y=1.0, yanchor="top")),
    )
    if diverging_bar:
        fig.update_layout(coloraxis2=dict(colorbar=dict(title=dict(text="candidate (tanh, −1–1)", side="right"),
                                                        thickness=14, len=0.48 if both else 1.0, y=0.0,
                                                        yanchor="bottom", x=1.02)))
    shown = len(unit_ids)
    of = f" ({shown} of {total_units})" if total_units and total_units > shown else ""
    fig.update_yaxes(title_text=f"unit{of}", row=(n + 1) // 2, col=1)
    fig.update_xaxes(title_text=time_title, row=n, col=1, **xaxis)
    per_row = 40 + 16 * min(max(shown, 8), 40)  # 16 px a unit: room for every label
    fig = base_layout(fig, title, 90 + per_row * n)
    fig.update_layout(hovermode="closest", margin=dict(l=80, r=20, t=60, b=50))
    fig.update_xaxes(tickfont=TICK_FONT)
    fig.update_yaxes(tickfont=TICK_FONT)
    fig.update_annotations(font=dict(size=13, color="#333333"), x=0.0, xanchor="left")  # the subplot titles, left-aligned
    return fig


def state_lines(
    values: np.ndarray,
    time: Sequence,
    unit_ids: Sequence[int],
    name: str = "c",
    kind: str = "",
    title: str = "Cell state over time",
    time_title: str = "time step t",
    original: np.ndarray | None = None,
) -> go.Figure:
    """One line per unit of an internal (e.g. the LSTM cell state cₜ), on the time axis.

    ``original``: the same units on the input before it was edited, drawn dashed in the same colours.
    """
    values = np.asarray(values, dtype="float64")
    x, xaxis = time_ticks(time)
    fig = go.Figure()
    palette = [COLORS["series"], COLORS["model"], COLORS["seasonal"], COLORS["val"], COLORS["naive"], *EXTRA_COLORS]
    for j, unit in enumerate(unit_ids):
        color = palette[j % len(palette)]
        fig.add_trace(
            go.Scatter(x=x, y=values[:, j], mode="lines", name=f"unit {int(unit)}", legendgroup=str(unit),
                       line=dict(width=2, color=color))
        )
        if original is not None:
            fig.add_trace(
                go.Scatter(x=x, y=np.asarray(original, dtype="float64")[:, j], mode="lines", legendgroup=str(unit),
                           name=f"unit {int(unit)} before the edit", showlegend=j == 0,
                           line=dict(width=1.5, color=color, dash="dash"))
            )
    fig.add_hline(y=0, line=dict(color="#bbbbbb", width=1))
    fig.update_yaxes(title_text=internal_label(name, kind), tickfont=TICK_FONT)
    fig.update_xaxes(title_text=time_title, tickfont=TICK_FONT, **xaxis)
    fig = base_layout(fig, title, 420)
    fig.update_layout(hovermode="closest", legend=dict(font=dict(size=12)))
    return fig


def pca_trajectory(
    points: np.ndarray,
    explained: Sequence[float],
    time: Sequence,
    name: str = "h",
    kind: str = "",
    title: str = "Hidden-state trajectory (PCA)",
) -> go.Figure:
    """The state's path through time in its first two principal components, coloured by time.

    Args:
        points: ``(T, 2)``, the states projected on PC1 and PC2 (``seqlab.inspect.pca``).
        explained: the share of the variance on PC1 and PC2 (0..1), shown on the axes.
        time: ``T`` labels for hover and for the start/end marks.
    """
    points = np.asarray(points, dtype="float64")
    labels = [str(v) for v in time]
    steps = np.arange(1, len(points) + 1)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=points[:, 0], y=points[:, 1], mode="lines", line=dict(color="#c9c9c9", width=1),
                   hoverinfo="skip", showlegend=False)
    )
    fig.add_trace(
        go.Scatter(
            x=points[:, 0], y=points[:, 1], mode="markers", showlegend=False, text=labels,
            marker=dict(color=steps, colorscale="Plasma", size=7,
                        colorbar=dict(title=dict(text="time step t", side="right"), thickness=14)),
            hovertemplate="%{text}<br>PC1 %{x:.3f}, PC2 %{y:.3f}<extra></extra>",
        )
    )
    if len(points):
        for i, word, shift in ((0, "start", -30), (len(points) - 1, "end", 30)):
            fig.add_annotation(x=points[i, 0], y=points[i, 1], text=word, showarrow=True, arrowhead=2,
                               ax=shift, ay=shift, font=dict(size=12), bgcolor="rgba(255, 255, 255, 0.8)",
                               hovertext=labels[i])
    state = internal_label(name, kind).split()[-1]
    fig.update_xaxes(title_text=f"PC1 of {state} ({100 * float(explained[0]):.0f} % of variance)")
    fig.update_yaxes(title_text=f"PC2 of {state} ({100 * float(explained[1]):.0f} % of variance)")
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest")
    return fig


def gradient_norms(
    norms: dict[str, np.ndarray],
    time: Sequence,
    title: str = "Gradient through time",
    loss: str = "",
    time_title: str = "time step t",
) -> go.Figure:
    """``‖∂L/∂hₜ‖`` against t on a log axis, one line per recurrent layer (and direction).

    A line that falls by orders of magnitude towards early t shows a vanishing
    gradient: those inputs hardly change what the model learns.
    """
    x, xaxis = time_ticks(time)
    fig = go.Figure()
    palette = [COLORS["model"], COLORS["series"], COLORS["seasonal"], COLORS["val"], *EXTRA_COLORS]
    for j, (label, values) in enumerate(norms.items()):
        values = np.asarray(values, dtype="float64")
        positive = np.where(values > 0, values, np.nan)  # a log axis cannot show 0
        fig.add_trace(
            go.Scatter(x=x, y=positive, mode="lines+markers", name=label, marker=dict(size=4),
                       line=dict(width=2, color=palette[j % len(palette)]),
                       hovertemplate="%{x}<br>‖∂L/∂hₜ‖ = %{y:.3g}<extra>" + label + "</extra>")
        )
    fig.update_yaxes(type="log", title_text="‖∂L/∂hₜ‖" + (f" ({loss})" if loss else ""), exponentformat="power")
    label_log_ticks(fig, [v for values in norms.values() for v in np.asarray(values, dtype="float64").ravel()
                          if np.isfinite(v)])
    fig.update_xaxes(title_text=time_title, **xaxis)
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest", showlegend=len(norms) > 1)
    return fig


def grad_norm_per_batch(
    batches: list[dict], clip_norm: float | None = None, title: str = "Gradient norm per training batch",
) -> go.Figure:
    """The global gradient norm of every training batch (``grad_norm`` of the batch events), log y.

    x is in epochs (batch s of epoch e at ``e - 1 + s / steps``), as the loss curves.
    """
    rows = [b for b in batches if b.get("grad_norm") is not None]
    x = batch_epochs(rows)
    y = [b["grad_norm"] for b in rows]
    fig = go.Figure(
        go.Scatter(x=x, y=y, mode="lines", name="‖∇L‖ per batch", line=dict(width=1.2, color=COLORS["train"]),
                   hovertemplate="epoch %{x:.2f}<br>‖∇L‖ = %{y:.3g}<extra></extra>")
    )
    if clip_norm:
        fig.add_hline(y=clip_norm, line=dict(color=COLORS["model"], dash="dash", width=1.5),
                      annotation_text=f"clip_norm = {clip_norm:g}", annotation_position="top left")
    shown = max([b["epoch"] for b in rows] + [1])
    fig.update_xaxes(title_text="epoch", range=[0, shown * 1.02], dtick=1 if 2 <= shown <= 20 else None)
    fig.update_yaxes(type="log", title_text="global gradient norm ‖∇θL‖", exponentformat="power")
    label_log_ticks(fig, y + ([clip_norm] if clip_norm else []))  # the clip line inside the labelled range
    fig = base_layout(fig, title, 380)
    fig.update_layout(hovermode="closest", showlegend=False)
    return fig
