"""Inspect figures: titled, axes labelled with units, colour bars titled, time shared."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from seqlab.inspect import pca
from seqlab.plots.inspect import (
    gate_heatmaps,
    grad_norm_per_batch,
    gradient_norms,
    internal_label,
    pca_trajectory,
    state_heatmap,
    state_lines,
    value_range,
)

T, UNITS = 10, 6


@pytest.fixture
def h():
    return np.tanh(np.random.default_rng(0).normal(size=(T, UNITS)))


def heatmaps(fig):
    return [trace for trace in fig.data if isinstance(trace, go.Heatmap)]


def test_state_heatmap_has_inputs_above_and_a_titled_colour_bar(h):
    time = pd.date_range("2014-01-01", periods=T, freq="30min")
    inputs = {"Demand (GW)": np.arange(T), "Temperature (°C)": np.ones(T)}
    units = [4, 1, 0]
    fig = state_heatmap(h[:, units], time, units, inputs=inputs, total_units=UNITS, title="Hidden state")
    (heat,) = heatmaps(fig)
    assert heat.z.shape == (3, T)  # units on y, time on x
    assert list(heat.y) == ["unit 4", "unit 1", "unit 0"]
    assert heat.colorbar.title.text == "hidden state hₜ" and (heat.zmin, heat.zmax) == (-1, 1)
    layout = fig.layout
    assert layout.title.text == "Hidden state"
    assert [a.text for a in layout.annotations] == ["Demand (GW)", "Temperature (°C)"]  # inside their rows
    assert layout.yaxis3.title.text == "unit (3 of 6)"
    assert layout.xaxis3.title.text == "time step t"
    assert layout.xaxis.matches == layout.xaxis2.matches == "x3"  # one time axis for all rows


def test_many_inputs_become_one_strip_and_tokens_become_ticks(h):
    inputs = {f"x{j}": np.arange(T) for j in range(8)}
    tokens = [f"w{t}" for t in range(T)]
    fig = state_heatmap(h, tokens, range(UNITS), inputs=inputs)
    assert len(heatmaps(fig)) == 2  # the inputs strip and the state
    assert list(fig.layout.xaxis2.ticktext) == tokens


def test_gate_heatmaps_share_gate_colour_bar_and_split_the_candidate(h):
    sig = 1 / (1 + np.exp(-h))
    fig = gate_heatmaps({"i": sig, "f": sig, "o": sig, "c_tilde": h}, range(1, T + 1), range(UNITS), kind="LSTMCell")
    maps = heatmaps(fig)
    assert len(maps) == 4
    assert [m.coloraxis for m in maps] == ["coloraxis", "coloraxis", "coloraxis", "coloraxis2"]
    assert fig.layout.coloraxis.colorbar.title.text.startswith("gate value")
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    assert fig.layout.coloraxis2.colorbar.title.text.startswith("candidate")
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["input gate iₜ", "forget gate fₜ", "output gate oₜ", "candidate c̃ₜ"]
    assert fig.layout.title.text and fig.layout.xaxis4.title.text == "time step t"


def test_lines_pca_and_labels(h):
    fig = state_lines(h[:, :3], range(T), [0, 1, 2], name="c", kind="LSTMCell", title="Cell state")
    assert len(fig.data) == 3 and fig.layout.yaxis.title.text == "cell state cₜ"
    p = pca(h)
    fig = pca_trajectory(p.points, p.explained, [f"t{t}" for t in range(T)], kind="ESNCell")
    assert "PC1 of zₜ" in fig.layout.xaxis.title.text and "% of variance" in fig.layout.yaxis.title.text
    assert fig.data[1].marker.colorbar.title.text == "time step t"
    assert internal_label("h", "SimpleRNNCell") == "hidden state zₜ"
    assert value_range("f") == (0.0, 1.0) and value_range("c", np.array([-3.0, 2.0])) == (-3.0, 3.0)


def test_pca_explains_a_line_fully():
    direction = np.array([1.0, 2.0, -2.0]) / 3
    states = np.outer(np.linspace(-1, 1, 20), direction)  # all on one line
    p = pca(states)
    assert p.explained[0] == pytest.approx(1.0) and p.explained[1] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(np.abs(p.components[0]), np.abs(direction), atol=1e-12)
    np.testing.assert_allclose(p.points[:, 0] ** 2, (states**2).sum(axis=1), atol=1e-12)


def test_gradient_figures_use_log_axes():
    fig = gradient_norms({"lstm_1": 0.5 ** np.arange(T)[::-1], "x": np.zeros(T)}, range(1, T + 1))
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.title.text.startswith("‖∂L/∂hₜ‖")
    assert fig.layout.xaxis.title.text == "time step t" and fig.layout.title.text
    assert np.isnan(fig.data[1].y).all()  # zeros cannot sit on a log axis
    batches = [{"epoch": e, "step": s, "grad_norm": 1.0 / s} for e in (1, 2) for s in (1, 2, 3, 4)]
    fig = grad_norm_per_batch(batches + [{"epoch": 2, "step": 5}], clip_norm=1.0)
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.title.text == "epoch"
    assert len(fig.data[0].x) == 8 and fig.data[0].x[-1] == pytest.approx(2.0)
    assert fig.layout.shapes  # the clip_norm line


def test_a_state_space_magnitude_reads_from_zero_with_its_rows_named_modes():
    values = np.abs(np.random.default_rng(0).normal(size=(6, 4)))
    fig = state_heatmap(values, np.arange(6), np.arange(4), name="magnitude", unit="mode")
    heat = fig.data[-1]
    assert (heat.zmin, heat.zmax) == (0.0, pytest.approx(values.max()))  # |x| is never negative
    assert list(heat.y) == ["mode 0", "mode 1", "mode 2", "mode 3"] and fig.layout.yaxis.title.text == "mode"
    assert heat.colorbar.title.text == "magnitude |xₜ|"
