"""State-space models: the diagonal linear one (S4D), the selective one (Mamba's S6) and Mamba's block.

Each layer trains on whole sequences and also steps one input at a time:
`initial_state(batch)`, `step(u_t, state) -> (y_t, new_state)`, and
`states(u)` for the state $x_t$ at every step (`state_names` names its parts).
"""

from seqlab.layers.state_space.diagonal import DiagonalStateSpace
from seqlab.layers.state_space.mamba_block import MambaBlock
from seqlab.layers.state_space.selective import SelectiveStateSpace

__all__ = ["DiagonalStateSpace", "MambaBlock", "SelectiveStateSpace"]
