"""Inspect's view of a temporal convolutional network: which input steps an output step reads, and the equations.

Registered for ``ReceptiveFieldTrace`` results (``seqlab.inspect.receptive_field``)
in ``inspect_view.RESULT_VIEWS``: the dilation diagram of the chosen output
step (rows: the input and every causal convolution; lines: the taps that
feed it), computed from the traced network's own kernel size and dilations.
"""

from __future__ import annotations

import streamlit as st

from seqlab.app import figures
from seqlab.app.inspect.inspect_view import RESULT_VIEWS, InspectInput, equations_panel, sample_outcome
from seqlab.app.task_views import view_for
from seqlab.data import SequenceData
from seqlab.inspect import Trace
from seqlab.inspect.receptive_field import ReceptiveFieldTrace
from seqlab.plots.receptive_field import receptive_field_diagram
from seqlab.runs import Run


@view_for(RESULT_VIEWS, "ReceptiveFieldTrace")
def receptive_field_view(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """Every TCN of the trace (one in the ``tcn`` architecture)."""
    for network in tr.of(ReceptiveFieldTrace):
        _one_network(run, data, tr, network, inp)


def _one_network(run: Run, data: SequenceData, tr: Trace, network: ReceptiveFieldTrace, inp: InspectInput) -> None:
    steps, R = len(inp.time), network.receptive_field
    cards = st.columns(3)
    cards[0].metric("receptive field R", f"{R:,} steps", border=True,
                    help="Output t reads inputs t - R + 1 .. t: 1 + 2 (k - 1)(d₁ + ... + d_L).")
    cards[1].metric("kernel size k", network.kernel_size, border=True)
    cards[2].metric("dilations", ", ".join(str(d) for d in network.dilations), border=True,
                    help="One per residual block, doubling: the field doubles with each block.")
    t = steps - 1
    if steps > 1:
        t = st.select_slider("Output step", options=list(range(steps)), value=steps - 1,
                             format_func=lambda i: str(inp.time[i]), key=f"inspect.tcn.t.{run.run_id}",
                             help="The step whose output is followed down to the inputs it reads.")
    read = network.read_steps(t)
    pictures, maths = st.columns([2, 1], gap="medium")
    with pictures:
        figures.show(receptive_field_diagram(network.levels, network.taps(t), inp.time, t,
                                             title=f"What output {inp.time[t]} of {network.name} reads"),
                     key="inspect.tcn.field")
        before = R - (t + 1)
        st.caption(
            f"Output {inp.time[t]} reads {len(read)} of the {steps} input steps, {inp.time[read[0]]} to "
            f"{inp.time[read[-1]]}, and nothing later: each convolution reads its own step and the steps "
            "d, 2d, ... before it, and the offsets add up level by level."
            + (f" Its field reaches {before} step(s) before the sequence, where the causal padding's zeros "
               "stand in." if before > 0 else " Steps before them do not reach it at all.")
        )
    with maths:
        equations_panel(network, source="the network's and its block's docstrings")
        sample_outcome(run, data, tr.outputs, inp.y_true)
