"""Figures for independent sequences (regress, classify, label): one sample, and the verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from seqlab.plots.style import COLORS, EXTRA_COLORS, axis_title, base_layout

MAX_LINE_FEATURES = 4  # more inputs than this are drawn as a heatmap (one row per feature)


def sample_preview(
    sample: pd.DataFrame,
    features: list[str],
    target: str,
    units: dict[str, str] | None = None,
    classes: tuple[str, ...] = (),
    title: str = "One sequence",
    image: bool = False,
) -> go.Figure:
    """The inputs of one sequence over its steps t, and its target.

    Args:
        sample: one row per step t, with the ``features`` columns and the ``target`` column.
        features: input columns, in the model's order.
        target: the target column: one value per sequence (repeated on every row) or one per step.
        units: column -> unit, for axis titles.
        classes: class names (index = class id) when the target is a class.
        image: the sequence is an image read row by row (``DatasetInfo.kinds``): step t
            is drawn as the image's row t, top row first, as the picture looks.

    Returns:
        Few inputs: one line subplot per input. Many (or one-hot) inputs: one heatmap,
        a row per input. An image: one heatmap, a row per step. A per-step target gets
        its own subplot at the bottom; a per-sequence target is named in the title.
    """
    units = units or {}
    t = sample.index.get_level_values(-1) if isinstance(sample.index, pd.MultiIndex) else sample.index
    t = np.asarray(t)
    y = sample[target].to_numpy()
    per_step = len(np.unique(y)) > 1
    image = image and not per_step  # a per-step target's row shares the time axis: time stays on x
    heat = image or len(features) > MAX_LINE_FEATURES
    input_rows = 1 if heat else len(features)
    rows = input_rows + int(per_step)
    heights = [1.0] * rows if not heat else ([0.75, 0.25] if per_step else [1.0])
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=heights)
    if heat:
        values = sample[features].to_numpy(dtype="float64")  # (T, F)
        unit_set = {units.get(f, "") for f in features}
        unit = unit_set.pop() if len(unit_set) == 1 else ""
        if image:  # the picture itself: row t of the image is step t
            z, x, y_labels, hover = values, list(features), [f"t={s}" for s in t], "%{y}, %{x}: %{z:.3g}"
        else:  # one row per input along time
            z, x, y_labels, hover = values.T, t, list(features), "t=%{x}<br>%{y}: %{z:.3g}"
        fig.add_trace(
            go.Heatmap(
                z=z, x=x, y=y_labels, colorscale="Greys" if image else "Blues",
                colorbar=dict(title=dict(text=unit or "value"), len=heights[0] if per_step else 1.0,
                              y=1.0, yanchor="top"),
                hovertemplate=hover + "<extra></extra>",
            ),
            row=1, col=1,
        )
        fig.update_yaxes(title_text="image row = step t" if image else "input", autorange="reversed", row=1, col=1)
        if image:
            fig.update_yaxes(scaleanchor="x", constrain="domain", row=1, col=1)  # square pixels
    else:
        for i, feature in enumerate(features, start=1):
            fig.add_trace(
                go.Scatter(
                    x=t, y=sample[feature], name=feature, mode="lines+markers",
                    line=dict(color=EXTRA_COLORS[(i - 1) % len(EXTRA_COLORS)] if i > 1 else COLORS["series"]),
                    marker=dict(size=4), showlegend=False,
                ),
                row=i, col=1,
            )
            fig.update_yaxes(title_text=axis_title(feature, units.get(feature)), row=i, col=1)
    if per_step:
        if classes:
            # Class names in a row of cells, one per step: readable even for 20+ steps.
            labels = [classes[int(v)] if 0 <= int(v) < len(classes) else str(v) for v in y]
            fig.add_trace(
                go.Heatmap(
                    z=[y.astype(float)], x=t, y=[target], text=[labels], texttemplate="%{text}",
                    colorscale=[[0.0, "#f3f3f3"], [1.0, "#9ecae1"]], showscale=False, xgap=2,
                    hovertemplate="t=%{x}: %{text}<extra></extra>",
                ),
                row=rows, col=1,
            )
        else:
            fig.add_trace(
                go.Scatter(x=t, y=y, mode="lines+markers", name=target, showlegend=False,
                           marker=dict(color=COLORS["actual"], size=6)),
                row=rows, col=1,
            )
            fig.update_yaxes(title_text=axis_title(target, units.get(target)), row=rows, col=1)
    else:
        value = y[0]
        shown = classes[int(value)] if classes else f"{value:.4g} {units.get(target, '')}".strip()
        title = f"{title}: {target} = {shown}"
    fig.update_xaxes(title_text="image column" if image else "step t", row=rows, col=1)
    return base_layout(fig, title, 260 + 160 * rows if not heat else 420 + 120 * int(per_step))


def confusion_matrix(
    y_true: np.ndarray, y_pred: np.ndarray, classes: tuple[str, ...], title: str = "Confusion matrix (test split)"
) -> go.Figure:
    """Counts of true class (rows) against predicted class (columns), with the counts written in."""
    k = len(classes)
    counts = np.zeros((k, k), dtype=int)
    np.add.at(counts, (np.asarray(y_true, int).ravel(), np.asarray(y_pred, int).ravel()), 1)
    fig = go.Figure(
        go.Heatmap(
            z=counts, x=list(classes), y=list(classes), colorscale="Blues", text=counts,
            texttemplate="%{text}", colorbar=dict(title=dict(text="count")),
            hovertemplate="true %{y}, predicted %{x}: %{z}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="predicted class", type="category")
    fig.update_yaxes(title_text="true class", type="category", autorange="reversed")
    fig = base_layout(fig, title, 460)
    fig.update_layout(hovermode="closest")
    return fig


def predicted_vs_actual(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    name: str = "target",
    unit: str = "",
    baseline: np.ndarray | None = None,
    baseline_name: str = "baseline",
    title: str = "Predicted versus actual (test split)",
) -> go.Figure:
    """A scatter of predictions against the truth, with the diagonal a perfect model would sit on."""
    y_true = np.asarray(y_true, dtype="float64").ravel()
    y_pred = np.asarray(y_pred, dtype="float64").ravel()
    low, high = float(min(y_true.min(), y_pred.min())), float(max(y_true.max(), y_pred.max()))
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=[low, high], y=[low, high], mode="lines", name="perfect",
                   line=dict(color=COLORS["history"], dash="dash", width=1))
    )
    if baseline is not None:
        fig.add_trace(
            go.Scatter(x=y_true, y=np.asarray(baseline, dtype="float64").ravel(), mode="markers",
                       name=baseline_name, marker=dict(color=COLORS["baseline"], size=5, opacity=0.6))
        )
    fig.add_trace(
        go.Scatter(x=y_true, y=y_pred, mode="markers", name="model",
                   marker=dict(color=COLORS["model"], size=6, opacity=0.7))
    )
    fig.update_xaxes(title_text=axis_title(f"actual {name}", unit))
    fig.update_yaxes(title_text=axis_title(f"predicted {name}", unit))
    fig = base_layout(fig, title, 440)
    fig.update_layout(hovermode="closest")
    return fig


def label_sequence(
    rows: dict[str, np.ndarray], classes: tuple[str, ...], title: str = "Labels at every step"
) -> go.Figure:
    """One row per labelling of the same sequence (truth, model, baselines), a cell per step t.

    Cells show the class name; colour marks agreement with the first row (the truth).
    """
    names = list(rows)
    labels = np.stack([np.asarray(rows[n], dtype=int).ravel() for n in names])  # (R, T)
    truth = labels[0]
    agree = (labels == truth[None, :]).astype(float)
    agree[0] = 0.5  # the truth row itself: neutral
    text = [[classes[v] if 0 <= v < len(classes) else str(v) for v in row] for row in labels]
    fig = go.Figure(
        go.Heatmap(
            z=agree, x=np.arange(labels.shape[1]), y=names, text=text, texttemplate="%{text}",
            colorscale=[[0.0, "#f4c7c3"], [0.5, "#eeeeee"], [1.0, "#c8ecd0"]], zmin=0, zmax=1,
            showscale=False, hovertemplate="t=%{x} · %{y}: %{text}<extra></extra>", xgap=2, ygap=2,
        )
    )
    fig.update_xaxes(title_text="step t", dtick=1)
    fig.update_yaxes(autorange="reversed")
    fig = base_layout(fig, title + " (green: matches the truth, red: does not)", 140 + 50 * len(names))
    fig.update_layout(hovermode="closest")
    return fig


def class_probabilities(
    probabilities: dict[str, np.ndarray], classes: tuple[str, ...], true_class: int | None = None,
    title: str = "Class probabilities",
) -> go.Figure:
    """Grouped bars of class probabilities (one group per source, e.g. SavedModel and stored)."""
    fig = go.Figure()
    palette = [COLORS["model"], COLORS["seasonal"], COLORS["naive"], COLORS["baseline"]]
    for i, (name, p) in enumerate(probabilities.items()):
        fig.add_trace(go.Bar(x=list(classes), y=np.asarray(p).ravel(), name=name, marker_color=palette[i % len(palette)]))
    if true_class is not None and 0 <= true_class < len(classes):
        fig.add_annotation(x=classes[true_class], y=1.0, yref="paper", text="true class", showarrow=True,
                           arrowhead=2, ax=0, ay=-25)
    fig.update_xaxes(title_text="class", type="category")
    fig.update_yaxes(title_text="probability", range=[0, 1.05])
    fig = base_layout(fig, title, 380)
    fig.update_layout(barmode="group", hovermode="closest")
    return fig
