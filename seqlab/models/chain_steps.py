r"""A chain of layers that carry a state, one step at a time: the ``Steps`` of the ``tcn``, ``s4d`` and ``mamba``
architectures.

Such a model is a chain: its input, layers that act on each step alone (the
embedding or the inputs' scaling, dense layers, activations, normalisation,
dropout, the head) and layers that carry a state from step to step, each with
``initial_state(rows)`` and ``read(xs, state)`` (several steps after a
carried state, in one pass): a TCN's shift buffers, the last $(k-1)d$ inputs
of each convolution (``seqlab.layers.tcn``), or a state-space layer's $x_t$
(``seqlab.layers.state_space``). A new token then costs the same however long
the text already is, and gives what the whole-sequence call gives.
``ChainSteps`` shares the model's layers (the same weights):

- ``read(xs, state)``: the chain over several steps, each carrier from its
  state in one pass (a prompt at once);
- ``next(x, state, t)``: one step through a small compiled model
  (``predict_on_batch``), so a token costs one graph call.

The state is every carrier's parts, one flat tuple of arrays, rows first.
``LastRealStep`` is the identity one step at a time: each step's output is
the output after that step.
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from seqlab.layers import LastRealStep
from seqlab.models.steps import OneStepSteps

# The classes that act on each step alone, so reading them one step at a time is exact.
POSITION_WISE = (keras.layers.Embedding, keras.layers.Dense, keras.layers.Dropout, keras.layers.Normalization,
                 keras.layers.Activation, keras.layers.LayerNormalization, LastRealStep)


def read_chain(layers: list, carriers: dict, xs, state, training=False):
    """``(outputs (B, s, ...), state)``: every layer over ``xs`` ``(B, s, ...)``, each carrier (``carriers``: its id ->
    how many arrays its state has) from its part of ``state``."""
    state, new, x = list(state), [], xs
    for layer in layers:
        if id(layer) in carriers:
            x, parts = layer.read(x, state[len(new) : len(new) + carriers[id(layer)]], training=training)
            new.extend(parts)
        elif not isinstance(layer, LastRealStep):  # one step at a time every step is the last
            x = layer(x, training=training)
    return x, tuple(new)


class OneStep(keras.Model):
    """One step of the chain: ``[x (B, ...), *state] -> [output, *state]``; never saved, it shares the layers."""

    def __init__(self, layers: list, carriers: dict, **kwargs):
        super().__init__(**kwargs)
        self.chain, self.carriers = layers, carriers

    def call(self, inputs):
        outputs, state = read_chain(self.chain, self.carriers, ops.expand_dims(inputs[0], 1), inputs[1:])
        return [outputs[:, 0], *state]


class ChainSteps(OneStepSteps):
    """A chain of position-wise layers and carriers of the classes ``carrying``, one step at a time (module docstring).

    Args:
        model: a model of such a chain (another is refused, naming its odd layer).
        carrying: the layer classes that carry a state (``TemporalConvNet``; the state-space layers).
        family: the architectures these steps run, for the refusal's message.
    """

    def __init__(self, model: keras.Model, carrying: tuple[type, ...], family: str):
        layers = model.layers[1:]  # layers[0] is the input
        odd = [layer for layer in layers if not isinstance(layer, (*carrying, *POSITION_WISE))]
        if odd or not any(isinstance(layer, carrying) for layer in layers):
            raise ValueError(
                f"Model {model.name!r} is not a chain of {family} and position-wise layers"
                + (f" (it has a {type(odd[0]).__name__} layer, {odd[0].name!r})" if odd else "")
                + f": these steps run models of the {family} architectures only."
            )
        if len(model.inputs) != 1:
            raise ValueError(f"Model {model.name!r} takes {len(model.inputs)} inputs; stepping reads one per step.")
        self.layers = layers
        self.carried_by = [layer for layer in layers if isinstance(layer, carrying)]
        self.carriers = {id(layer): len(layer.initial_state(1)) for layer in self.carried_by}

    def start(self, rows: int) -> tuple:
        """Every carrier's state before the first step (zeros): what the whole-sequence call starts from."""
        return tuple(np.asarray(part) for layer in self.carried_by for part in layer.initial_state(rows))

    def build_one_step(self) -> OneStep:
        return OneStep(self.layers, self.carriers, name="one_step")

    def initial(self, rows) -> dict:
        parts = (part for layer in self.carried_by for part in layer.initial_state(rows))
        return {f"state_{i}": ops.convert_to_tensor(part) for i, part in enumerate(parts)}

    def read(self, xs, state, training: bool = False):
        """``(outputs (B, s, ...), state)`` after ``xs`` ``(B, s, ...)``: one pass per carrier."""
        return read_chain(self.layers, self.carriers, ops.convert_to_tensor(xs), state, training=training)
