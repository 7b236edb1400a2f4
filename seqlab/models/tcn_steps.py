r"""A temporal convolutional network one step at a time: the ``Steps`` of the ``tcn`` architecture.

A TCN model is a chain: its input, layers that act on each step alone (the
embedding or the inputs' scaling, a dense head) and the
``seqlab.layers.tcn.TemporalConvNet``. Output $t$ of a causal convolution
of kernel size $k$ and dilation $d$ reads inputs $t, t-d, \dots, t-(k-1)d$,
so stepping keeps each convolution's last $(k-1)d$ inputs (the network's
``initial_state``, ``step``, ``read``): a new token costs $O(L k)$ products
however long the text already is, and gives what the whole-sequence call
gives. ``TCNSteps`` shares the model's layers (the same weights):

- ``read(xs, state)``: the chain over several steps, one convolution pass
  each from the carried buffers (a prompt at once);
- ``next(x, state, t)``: one step through a small compiled model
  (``predict_on_batch``), so a token costs one graph call.

The state is every convolution's buffer, one flat tuple of
``(B, (k-1)d, channels)`` arrays, rows first.
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from seqlab.layers.tcn import TemporalConvNet
from seqlab.models.recurrent_steps import POSITION_WISE  # the layers that act on each step alone, as there
from seqlab.models.steps import Steps


def tcn_chain(model: keras.Model) -> list:
    """The model's layers after its input; a model that is not such a chain (module docstring) is refused."""
    layers = model.layers[1:]  # layers[0] is the input
    odd = [layer for layer in layers if not isinstance(layer, (TemporalConvNet, *POSITION_WISE))]
    if odd or not any(isinstance(layer, TemporalConvNet) for layer in layers):
        raise ValueError(
            f"Model {model.name!r} is not a TCN between position-wise layers"
            + (f" (it has a {type(odd[0]).__name__} layer, {odd[0].name!r})" if odd else "")
            + ": the shift buffers step models of the tcn architecture only."
        )
    if len(model.inputs) != 1:
        raise ValueError(f"Model {model.name!r} takes {len(model.inputs)} inputs; stepping reads one per step.")
    return layers


def read_chain(layers: list, xs, state, training=False):
    """``(outputs (B, s, ...), state)``: every layer of the chain over ``xs`` ``(B, s, ...)`` from ``state``."""
    state, new, x = list(state), [], xs
    for layer in layers:
        if isinstance(layer, TemporalConvNet):
            x, buffers = layer.read(x, state[len(new) : len(new) + 2 * len(layer.blocks)], training=training)
            new.extend(buffers)
        else:
            x = layer(x, training=training)
    return x, tuple(new)


class OneStep(keras.Model):
    """One step of the chain: ``[x (B, ...), *buffers] -> [output, *buffers]``; never saved, it shares the layers."""

    def __init__(self, layers: list, **kwargs):
        super().__init__(**kwargs)
        self.chain = layers

    def call(self, inputs):
        outputs, state = read_chain(self.chain, ops.expand_dims(inputs[0], 1), inputs[1:])
        return [outputs[:, 0], *state]


class TCNSteps(Steps):
    """A chain of position-wise layers and a TCN, one step at a time from its shift buffers (module docstring)."""

    def __init__(self, model: keras.Model):
        self.layers = tcn_chain(model)
        self.networks = [layer for layer in self.layers if isinstance(layer, TemporalConvNet)]
        self._one_step = None  # compiled on the first ``next``

    def start(self, rows: int) -> tuple:
        """Every convolution's buffer of zeros for ``rows`` rows: what the whole-sequence call pads with."""
        return tuple(np.asarray(buffer) for network in self.networks for buffer in network.initial_state(rows))

    def next(self, x, state, t):
        if self._one_step is None:
            self._one_step = OneStep(self.layers, name="tcn_one_step")
        output, *state = self._one_step.predict_on_batch([np.asarray(x), *state])
        return output, tuple(state)

    def read(self, xs, state, training: bool = False):
        """``(outputs (B, s, ...), state)`` after ``xs`` ``(B, s, ...)``: one pass per convolution."""
        return read_chain(self.layers, ops.convert_to_tensor(xs), state, training=training)
