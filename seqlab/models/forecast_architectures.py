"""The forecasting architectures: windowed MLP, LSTM and GRU.

The recurrent bodies stack ``layers`` recurrent layers; all but the last return
sequences, the last returns its final hidden state h_T, which a Dense layer maps
to the H future values.
"""

from __future__ import annotations

import keras

from seqlab.data.sequence_data import SequenceData
from seqlab.models.forecaster import build_forecaster, check_dropout, check_positive_int
from seqlab.models.registry import Architecture, register_architecture

RECURRENT_DEFAULTS = {"units": 64, "layers": 1, "dropout": 0.0}


def recurrent_forecaster(layer_cls, name: str):
    def build(data: SequenceData, units: int, layers: int, dropout: float) -> keras.Model:
        units = check_positive_int("units", units)
        layers = check_positive_int("layers", layers)
        dropout = check_dropout(dropout)

        def body(x):
            for i in range(layers):
                last = i == layers - 1
                x = layer_cls(units, return_sequences=not last, dropout=dropout, name=f"{name}_{i + 1}")(x)
            return x  # (B, units): h_T of the top layer

        return build_forecaster(data, body, name=f"{name}_forecaster")

    return build


def build_mlp(data: SequenceData, units: int, layers: int, dropout: float) -> keras.Model:
    units = check_positive_int("units", units)
    layers = check_positive_int("layers", layers)
    dropout = check_dropout(dropout)

    def body(x):
        x = keras.layers.Flatten(name="flatten_window")(x)  # (B, T, F) -> (B, T*F)
        for i in range(layers):
            x = keras.layers.Dense(units, activation="relu", name=f"hidden_{i + 1}")(x)
            if dropout:
                x = keras.layers.Dropout(dropout)(x)
        return x

    return build_forecaster(data, body, name="mlp_forecaster")


register_architecture(
    Architecture(
        name="lstm",
        title="LSTM",
        tasks=("forecast",),
        family="LSTM",
        description="Long short-term memory: gated cell state carries information over long spans.",
        build=recurrent_forecaster(keras.layers.LSTM, "lstm"),
        defaults=RECURRENT_DEFAULTS,
    )
)
register_architecture(
    Architecture(
        name="gru",
        title="GRU",
        tasks=("forecast",),
        family="GRU",
        description="Gated recurrent unit: update and reset gates, fewer weights than an LSTM.",
        build=recurrent_forecaster(keras.layers.GRU, "gru"),
        defaults=RECURRENT_DEFAULTS,
    )
)
register_architecture(
    Architecture(
        name="mlp",
        title="Windowed MLP (NARX-style)",
        tasks=("forecast",),
        family="NARX / TDNN",
        description="A feed-forward net on the flattened window y_{t-1..t-T}, x_{t-1..t-T}.",
        build=build_mlp,
        defaults={"units": 128, "layers": 2, "dropout": 0.0},
    )
)
