"""A recurrent language model one token at a time, as a compiled Keras model: the engine of stateful generation.

A recurrent language model is ``embedding -> RNN layers -> Dense(V, softmax)``.
``RecurrentStepper`` shares those layers (the same weights) and calls each
RNN layer's cell once: ``[ids (B,), *states] -> [probabilities (B, V),
*new states]``. Stepping it through ``predict_on_batch`` runs Keras's
compiled predict function, so a generated token costs one graph call, not a
Python walk over layers and eager ops.
"""

from __future__ import annotations

import keras

# The classes that act on each step alone, so stepping them one token at a time is exact.
POSITION_WISE = ("InputLayer", "Embedding", "Dense", "Dropout")


def state_counts(model: keras.Model) -> list[int]:
    """How many state arrays each RNN layer's cell carries (LSTM: ``h`` and ``c``; Elman, GRU: ``h``)."""
    return [len(layer.cell.get_initial_state(batch_size=1)) for layer in model.layers
            if isinstance(layer, keras.layers.RNN)]  # fmt: skip


def check_steppable(model: keras.Model) -> None:
    """Refuse a model that cannot be stepped exactly one token at a time (see the module docstring)."""
    for layer in model.layers:
        if not isinstance(layer, keras.layers.RNN) and type(layer).__name__ not in POSITION_WISE:
            raise ValueError(
                f"Model {model.name!r} has a {type(layer).__name__} layer ({layer.name!r}); stateful generation "
                "steps only embeddings, recurrent layers and dense heads, one token at a time."
            )
        if isinstance(layer, keras.layers.RNN) and layer.go_backwards:
            raise ValueError(f"Model {model.name!r} reads backwards: it cannot generate text left to right.")


class RecurrentStepper(keras.Model):
    """One step of a recurrent language model's layers (module docstring); never saved, it shares their weights.

    Args:
        model: the language model: ``InputLayer``, then position-wise layers and ``keras.layers.RNN`` layers.

    Call arguments:
        inputs: ``[ids, *states]``: int ids ``(B,)``, then each RNN layer's state arrays ``(B, units)`` in order.

    Returns:
        ``[probabilities (B, V), *states]``, the states after reading ``ids``.
    """

    def __init__(self, model: keras.Model, **kwargs):
        super().__init__(**kwargs)
        check_steppable(model)
        self.steps = list(model.layers[1:])  # layers[0] is the input
        self.counts = state_counts(model)

    def call(self, inputs):
        x, states = inputs[0], list(inputs[1:])
        carried, counts = [], iter(self.counts)
        for layer in self.steps:
            if isinstance(layer, keras.layers.RNN):
                k, n = len(carried), next(counts)
                x, new = layer.cell(x, states[k : k + n], training=False)
                carried.extend(new)
            else:
                x = layer(x, training=False)
        return [x, *carried]
