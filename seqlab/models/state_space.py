"""The state-space architectures: S4D (diagonal, linear, time-invariant) and Mamba (selective).

Both bodies are chains that act on each step alone except the state-space
layers, whose state carries the past:

- ``s4d``: ``Dense(width)``, then per layer ``DiagonalStateSpace`` (one
  linear SISO system of ``state_size`` modes per channel), GELU, a
  ``Dense(width)`` that mixes the channels, dropout;
- ``mamba``: ``Dense(width)``, then ``layers`` pre-normalised residual
  ``MambaBlock`` s (each with dropout after it), then a layer normalisation.

They return every step for a labelling task or a language model, else the
last real step (``LastRealStep``), on which the task's head sits. A mask of
padded text reaches the layers, which zero the padded steps' inputs and keep
their state there. Nothing reads a later step, so a language model needs no
mask of the future, and it generates one token at a time from each layer's
carried state (``seqlab.models.chain_steps``).

Keras and the layers are imported inside the builders, so registering the architectures does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

TASKS = ("forecast", "regress", "classify", "label", "language")
S4D_INITS = ("lin", "real")  # seqlab.layers.state_space.diagonal.INITS, written out so listing needs no Keras
RANGES = {"width": Range(1, 1024), "state_size": Range(1, 256), "layers": Range(1, 16)}
LABELS = {
    "width": ("Width H", "Channels of the state-space layers: each channel is its own system."),
    "state_size": ("State size N", "Modes (state entries) per channel: x_t has H x N of them."),
    "layers": ("Layers", "State-space layers (S4D) or Mamba blocks, stacked."),
}


def build_state_space(data: SequenceData, name: str, width: int, layers: int, dropout: float, layer) -> keras.Model:
    """The chain of the module docstring, ``layer(i)`` the ``i``-th state-space stage (one or several layers)."""
    import keras

    from seqlab.layers import LastRealStep
    from seqlab.models.task_model import build_task_model

    width, layers = check_positive_int("width", width), check_positive_int("layers", layers)
    dropout = check_dropout(dropout)

    def body(x, sequences):
        x = keras.layers.Dense(width, name="in_projection")(x)  # the features (or embedding) to H channels
        for i in range(1, layers + 1):
            for stage in layer(i):
                x = stage(x)
            x = keras.layers.Dropout(dropout, name=f"dropout_{i}")(x)
        return x if sequences else LastRealStep(name="last_step")(x)  # (B, T, H) or (B, H)

    return build_task_model(data, body, name=name)


def build_s4d(data: SequenceData, width: int, state_size: int, layers: int, dropout: float, init: str) -> keras.Model:
    import keras

    from seqlab.layers import DiagonalStateSpace

    state_size = check_positive_int("state_size", state_size)

    def stage(i):
        return [
            DiagonalStateSpace(state_size, init=init, name=f"s4d_{i}"),
            keras.layers.Activation("gelu", name=f"gelu_{i}"),
            keras.layers.Dense(width, name=f"mix_{i}"),  # S4D's channels are independent: this mixes them
        ]

    return build_state_space(data, "s4d", width, layers, dropout, stage)


def build_mamba(
    data: SequenceData, width: int, state_size: int, layers: int, dropout: float, expand: int, conv_width: int
) -> keras.Model:
    import keras

    from seqlab.layers import MambaBlock

    options = dict(state_size=check_positive_int("state_size", state_size), expand=check_positive_int("expand", expand),
                   conv_width=check_positive_int("conv_width", conv_width))

    def stage(i):
        block = [MambaBlock(**options, name=f"mamba_{i}")]
        # Mamba ends in an RMSNorm; Keras's RMSNormalization drops a mask, so a LayerNormalization stands in.
        return block + ([keras.layers.LayerNormalization(name="final_norm")] if i == layers else [])

    return build_state_space(data, "mamba", width, layers, dropout, stage)


def state_space_steps(model: keras.Model):
    """The model one step at a time, every state-space layer's state carried (``seqlab.models.chain_steps``)."""
    from seqlab.layers import DiagonalStateSpace, MambaBlock, SelectiveStateSpace
    from seqlab.models.chain_steps import ChainSteps

    return ChainSteps(model, (DiagonalStateSpace, SelectiveStateSpace, MambaBlock), "s4d and mamba")


register_architecture(
    Architecture(
        name="s4d",
        title="State-space model (S4D)",
        tasks=TASKS,
        family="State-space model",
        teaches=r"$x_t = \bar A x_{t-1} + \bar B u_t$, $y_t = C x_t + D u_t$: a long convolution to train, "
                "a recurrence to step",
        description=(
            "Diagonal linear state-space layers (S4D): per channel x_t = Ā x_{t-1} + B̄ u_t, "
            "y_t = Re(C x_t) + D u_t, discretised by zero-order hold; it trains as one long convolution and "
            "generates as a recurrence with an O(1) state per token. Inspect shows the state x_t over the sequence."
        ),
        build=build_s4d,
        defaults={"width": 64, "state_size": 16, "layers": 2, "dropout": 0.0, "init": "lin"},
        ranges=RANGES,
        choices={"init": S4D_INITS},
        labels={**LABELS, "init": ("Initial A", "lin: a_n = -1/2 + iπn (complex, S4D-Lin); real: a_n = -(n+1).")},
        steps=state_space_steps,
    )
)
register_architecture(
    Architecture(
        name="mamba",
        title="Selective state-space (Mamba)",
        tasks=TASKS,
        family="State-space model",
        teaches="selective (Mamba): the step and $B$, $C$ computed from each input",
        description=(
            "Mamba blocks: a short causal convolution, then a selective state-space layer whose step Δ_t and "
            "matrices B_t, C_t are read from the input (it can choose what to keep), gated; a scan over the "
            "sequence, a recurrence with an O(1) state per generated token. Inspect shows the state x_t."
        ),
        build=build_mamba,
        defaults={"width": 64, "state_size": 16, "layers": 2, "dropout": 0.0, "expand": 2, "conv_width": 4},
        ranges={**RANGES, "expand": Range(1, 8), "conv_width": Range(1, 16)},
        labels={
            **LABELS,
            "expand": ("Expansion E/H", "The block widens H channels to E = expand x H inside."),
            "conv_width": ("Convolution width", "Steps the block's causal convolution reads before the scan."),
        },
        steps=state_space_steps,
    )
)
