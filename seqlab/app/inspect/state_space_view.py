"""Inspect's view of a state-space model: the state x_t of one channel over the sequence, and the equations.

Registered for ``StateSpaceTrace`` results (``seqlab.inspect.state_space``)
in ``inspect_view.RESULT_VIEWS``: a heatmap of the chosen channel's $N$ modes
over the steps (its magnitude $|x_t|$, or one part: $\\mathrm{Re}\\,x_t$,
$\\mathrm{Im}\\,x_t$, or $x_t$ when it is real), as a recurrent cell's state
heatmap is drawn, beside the layer's equations from its docstring.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from seqlab.app import figures
from seqlab.app.inspect.inspect_view import RESULT_VIEWS, InspectInput, equations_panel, sample_outcome
from seqlab.app.task_views import view_for
from seqlab.data import SequenceData
from seqlab.inspect import Trace
from seqlab.inspect.state_space import StateSpaceTrace
from seqlab.plots.inspect import state_heatmap
from seqlab.runs import Run

PARTS = {"magnitude": "|xₜ| (magnitude)", "x_real": "Re xₜ", "x_imag": "Im xₜ", "x": "xₜ"}


@view_for(RESULT_VIEWS, "StateSpaceTrace")
def state_space_view(run: Run, data: SequenceData, tr: Trace, inp: InspectInput) -> None:
    """Layer, channel and part choosers, the state heatmap, the equations and the model's answer."""
    layers = tr.of(StateSpaceTrace)
    controls = st.columns(3)
    layer = layers[0]
    if len(layers) > 1:
        names = [result.name for result in layers]
        name = controls[0].selectbox("Layer", names, key=f"inspect.ssm.layer.{run.run_id}",
                                     help="Stacked layers read the layer below's output sequence.")
        layer = layers[names.index(name)]
    ranked = layer.top_channels(layer.channels)
    channel = int(controls[1].selectbox(
        "Channel", ranked, key=f"inspect.ssm.channel.{run.run_id}.{layer.name}",
        format_func=lambda h: f"channel {h}", help="Most active first (mean |xₜ|): each channel is its own system.",
    ))
    parts = ["magnitude", *layer.arrays] if layer.is_complex else list(layer.arrays)
    part = controls[2].radio("Shown", parts, format_func=PARTS.get, horizontal=True,
                             key=f"inspect.ssm.part.{run.run_id}")
    values = layer.channel(channel, part)
    pictures, maths = st.columns([2, 1], gap="medium")
    with pictures:
        figures.show(
            state_heatmap(values, inp.time, np.arange(layer.modes), inputs=inp.inputs, name=part,
                          time_title=inp.time_title, unit="mode",
                          title=f"State of {layer.name}, channel {channel}: {PARTS[part]}, one row per mode"),
            key="inspect.ssm.state",
        )
        st.caption(
            f"One row per mode n = 0 .. {layer.modes - 1} of channel {channel}'s state, one column per step: what "
            "the layer carries from the steps it has read to the next. A mode whose colour fades fast forgets "
            "fast (|Āₙ| small); one that stays holds the past." + (" Padded steps keep the state and are left "
                                                                  "blank." if layer.mask is not None else "")
        )
    with maths:
        equations_panel(layer, source="the layer's docstring")
        sample_outcome(run, data, tr.outputs, inp.y_true)
