"""A recurrent model one step at a time: the ``Steps`` of the Elman RNN, LSTM and GRU architectures.

A recurrent model is a chain: its input, then layers that act on each step
alone (an embedding, the inputs' scaling, dropout, a dense head) and
``keras.layers.RNN`` layers. ``RecurrentSteps`` shares those layers (the same
weights) and carries every RNN layer's cell state (``h``, and ``c`` for an
LSTM), as one flat tuple of ``(B, units)`` arrays, rows first:

- ``next(x, state, t)`` calls each RNN layer's cell once. For generation it
  runs through ``predict_on_batch`` of a small compiled model (``OneStep``),
  so a token costs one graph call, not a Python walk over layers and eager ops;
- ``read(xs, state, training)`` runs every layer over several steps, each RNN
  layer from its carried state (a prompt at once, or a TBPTT span with its
  gradients).

The output of a step is the model's own output at that step: the next
token's probabilities ``(B, V)`` for a language model, the forecast ``(B, H)``
for a forecaster (the windowed model's output after its last step).
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from seqlab.models.steps import OneStepSteps

# The classes that act on each step alone, so stepping them one step at a time is exact.
POSITION_WISE = (keras.layers.Embedding, keras.layers.Dense, keras.layers.Dropout, keras.layers.Normalization)


def check_chain(model: keras.Model) -> list:
    """The model's layers after its input; a model that is not such a chain (module docstring) is refused."""
    layers = model.layers[1:]  # layers[0] is the input
    for layer in layers:
        if isinstance(layer, keras.layers.RNN):
            if layer.go_backwards:
                raise ValueError(f"Model {model.name!r} reads backwards: it cannot be run one step at a time.")
        elif not isinstance(layer, POSITION_WISE):
            raise ValueError(
                f"Model {model.name!r} has a {type(layer).__name__} layer ({layer.name!r}): running a model one step "
                "at a time needs a stack of unidirectional recurrent layers (simple_rnn, lstm, gru) between "
                "position-wise layers (embedding, scaling, dense)."
            )
    if len(model.inputs) != 1:
        raise ValueError(f"Model {model.name!r} takes {len(model.inputs)} inputs; stepping reads one per step.")
    return layers


class OneStep(keras.Model):
    """One step of the chain: ``[x (B, ...), *states] -> [output, *states]``; never saved, it shares the layers."""

    def __init__(self, layers: list, counts: list[int], **kwargs):
        super().__init__(**kwargs)
        self.chain, self.counts = layers, counts

    def call(self, inputs):
        x, states = inputs[0], list(inputs[1:])
        carried, counts = [], iter(self.counts)
        for layer in self.chain:
            if isinstance(layer, keras.layers.RNN):
                k, n = len(carried), next(counts)
                x, new = layer.cell(x, states[k : k + n], training=False)
                carried.extend(new)
            else:  # on a one-step sequence: a layer built on sequences (the inputs' scaling) keeps its axes
                x = layer(ops.expand_dims(x, 1), training=False)[:, 0]
        return [x, *carried]


class RecurrentSteps(OneStepSteps):
    """A chain of position-wise and recurrent layers, one step at a time (module docstring).

    ``free_runs``: a forecast may run it on its own predictions from the window's end (the ESN's free run).
    """

    def __init__(self, model: keras.Model, free_runs: bool = False):
        self.free_runs = free_runs
        self.layers = check_chain(model)
        self.cells = [layer.cell for layer in self.layers if isinstance(layer, keras.layers.RNN)]
        self.counts = [len(cell.get_initial_state(batch_size=1)) for cell in self.cells]
        # The same cells (the same weights) over a span, every step out and the final state.
        self.spans = [
            keras.layers.RNN(layer.cell, return_sequences=True, return_state=True, name=f"{layer.name}_span")
            if isinstance(layer, keras.layers.RNN) else layer
            for layer in self.layers
        ]  # fmt: skip

    def start(self, rows: int) -> tuple:
        """Every cell's initial state for ``rows`` rows."""
        return tuple(s for cell in self.cells for s in cell.get_initial_state(batch_size=rows))

    def build_one_step(self) -> OneStep:  # compiled on the first step: TBPTT never needs it
        return OneStep(self.layers, self.counts, name="one_step")

    def initial(self, rows) -> dict:
        return {f"state_{i}": s for i, s in enumerate(self.start(rows))}

    def read(self, xs, state, training: bool = False):
        """``(outputs (B, s, ...), state)``: every layer over ``xs`` ``(B, s, ...)`` from ``state``."""
        state, new, x = list(state), [], xs
        for layer in self.spans:
            if isinstance(layer, keras.layers.RNN):
                n = self.counts[len(new)]
                k = sum(self.counts[: len(new)])
                out = layer(x, initial_state=state[k : k + n], training=training)
                x = out[0]
                new.append(out[1:])
            else:
                x = layer(x, training=training)
        return x, tuple(s for states in new for s in states)
