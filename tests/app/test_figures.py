"""Every figure's downloads and projector styling (seqlab.app.figures)."""

import numpy as np
import plotly.graph_objects as go

from seqlab.plots import OKABE_ITO, figure_table, for_projector


def test_the_csv_holds_every_point_and_every_cell():
    fig = go.Figure([
        go.Scatter(x=[1, 2, 3], y=[0.5, 0.25, 0.125], name="loss"),
        go.Heatmap(z=np.arange(6).reshape(2, 3), x=["a", "b", "c"], y=["r1", "r2"], name="weights"),
    ])
    table = figure_table(fig)
    loss = table[table["trace"] == "loss"]
    assert loss["y"].tolist() == [0.5, 0.25, 0.125] and loss["x"].tolist() == [1, 2, 3]
    cells = table[table["trace"] == "weights"].set_index(["y", "x"])["z"]
    assert len(cells) == 6 and cells[("r2", "a")] == 3 and cells[("r1", "c")] == 2


def test_projector_styling_enlarges_type_and_swaps_in_colour_blind_safe_colours():
    fig = go.Figure(go.Scatter(y=[1, 2], line=dict(color="#d62728", width=1), name="model"))
    fig.update_layout(height=300)
    shown = for_projector(fig)
    assert shown.data[0].line.color == OKABE_ITO["#d62728"] and shown.data[0].line.width >= 3
    assert shown.layout.font.size >= 20 and shown.layout.height > 300
    assert fig.data[0].line.color == "#d62728"  # the original is left alone


def test_projector_mode_is_a_switch_on_every_page(open_page):
    at = open_page()
    assert not at.toggle(key="projector").value
    at.toggle(key="projector").set_value(True).run()
    assert not at.exception
    assert at.session_state["projector"]  # read by every figure through seqlab.app.figures.projector_on
