"""Temporal convolutional networks (Bai et al. 2018): dilated causal convolutions in residual blocks.

Every layer runs on a whole sequence (`call`), one step at a time
(`initial_state(batch)`, `step(x_t, state) -> (y_t, state)`) and several
steps from a carried state (`read(x, state) -> (y, state)`, a prompt at once),
the state being each convolution's last $(k-1)d$ inputs; all give the same outputs.
"""

from seqlab.layers.tcn.causal_convolution import CausalConv1D
from seqlab.layers.tcn.network import TemporalConvNet
from seqlab.layers.tcn.receptive_field import receptive_field, receptive_offsets, receptive_positions
from seqlab.layers.tcn.residual_block import TemporalBlock

__all__ = [
    "CausalConv1D",
    "TemporalBlock",
    "TemporalConvNet",
    "receptive_field",
    "receptive_offsets",
    "receptive_positions",
]
