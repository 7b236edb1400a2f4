r"""A state-space model one step at a time: the ``Steps`` of the ``s4d`` and ``mamba`` architectures.

A state-space model is a chain: its input, layers that act on each step alone
(the embedding or the inputs' scaling, dense layers, activations,
normalisation, dropout, the last real step, the head) and state-space layers
(``DiagonalStateSpace``, ``SelectiveStateSpace``, ``MambaBlock``), each with
``initial_state``, ``step`` and ``read``. Stepping carries each state-space
layer's state $x_t$ (and a Mamba block's last $w - 1$ convolution inputs), so
a new token costs the same however long the text already is, and gives what
the whole-sequence call gives. ``StateSpaceSteps`` shares the model's layers
(the same weights):

- ``read(xs, state)``: the chain over several steps, each state-space layer
  from its carried state in one pass (S4D's convolution with the state's
  contribution added, Mamba's scan): a prompt at once;
- ``next(x, state, t)``: one step through a small compiled model
  (``predict_on_batch``), so a token costs one graph call.

The state is every state-space layer's parts, one flat tuple of arrays,
rows first. ``LastRealStep`` is the identity one step at a time: each step's
output is the output after that step.
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from seqlab.layers import DiagonalStateSpace, LastRealStep, MambaBlock, SelectiveStateSpace
from seqlab.models.steps import Steps

STATEFUL = (DiagonalStateSpace, SelectiveStateSpace, MambaBlock)
# The classes that act on each step alone, so reading them one step at a time is exact.
POSITION_WISE = (keras.layers.Embedding, keras.layers.Dense, keras.layers.Dropout, keras.layers.Normalization,
                 keras.layers.Activation, keras.layers.LayerNormalization)


def state_space_chain(model: keras.Model) -> list:
    """The model's layers after its input; a model that is not such a chain (module docstring) is refused."""
    layers = model.layers[1:]  # layers[0] is the input
    odd = [layer for layer in layers if not isinstance(layer, (*STATEFUL, *POSITION_WISE, LastRealStep))]
    if odd or not any(isinstance(layer, STATEFUL) for layer in layers):
        raise ValueError(
            f"Model {model.name!r} is not a chain of state-space and position-wise layers"
            + (f" (it has a {type(odd[0]).__name__} layer, {odd[0].name!r})" if odd else "")
            + ": these steps run models of the s4d and mamba architectures only."
        )
    if len(model.inputs) != 1:
        raise ValueError(f"Model {model.name!r} takes {len(model.inputs)} inputs; stepping reads one per step.")
    return layers


def read_chain(layers: list, xs, state, training=False):
    """``(outputs (B, s, ...), state)``: every layer of the chain over ``xs`` ``(B, s, ...)`` from ``state``."""
    state, new, x = list(state), [], xs
    for layer in layers:
        if isinstance(layer, STATEFUL):
            parts = len(layer.state_names)
            x, layer_state = layer.read(x, state[len(new) : len(new) + parts])
            new.extend(layer_state)
        elif not isinstance(layer, LastRealStep):  # one step at a time every step is the last
            x = layer(x, training=training)
    return x, tuple(new)


class OneStep(keras.Model):
    """One step of the chain: ``[x (B, ...), *state] -> [output, *state]``; never saved, it shares the layers."""

    def __init__(self, layers: list, **kwargs):
        super().__init__(**kwargs)
        self.chain = layers

    def call(self, inputs):
        outputs, state = read_chain(self.chain, ops.expand_dims(inputs[0], 1), inputs[1:])
        return [outputs[:, 0], *state]


class StateSpaceSteps(Steps):
    """A chain of position-wise and state-space layers, one step at a time from their states (module docstring)."""

    def __init__(self, model: keras.Model):
        self.layers = state_space_chain(model)
        self.stateful = [layer for layer in self.layers if isinstance(layer, STATEFUL)]
        self._one_step = None  # compiled on the first ``next``

    def start(self, rows: int) -> tuple:
        """Every state-space layer's state before the first step, zeros: what the whole-sequence call starts from."""
        return tuple(np.asarray(part) for layer in self.stateful for part in layer.initial_state(rows))

    def next(self, x, state, t):
        if self._one_step is None:
            self._one_step = OneStep(self.layers, name="state_space_one_step")
        output, *state = self._one_step.predict_on_batch([np.asarray(x), *state])
        return output, tuple(state)

    def read(self, xs, state, training: bool = False):
        """``(outputs (B, s, ...), state)`` after ``xs`` ``(B, s, ...)``: one pass per state-space layer."""
        return read_chain(self.layers, ops.convert_to_tensor(xs), state, training=training)
