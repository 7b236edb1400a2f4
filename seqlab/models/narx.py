r"""The notes' NARX model (TDNN) as a forecaster: direct multi-step predictions from the tapped delay lines.

The body is one ``seqlab.layers.narx.NARX`` over the normalised window: the
network f reads the last ``lag`` rows (0: the whole lookback, as for ARX),
y_{t-1..t-T} and x_{t-1..t-T}, and its output layer gives the notes' direct
predictions f^tau for tau = 0..H-1 (plus y_{t-1} in the residual form). The
task's head ``Dense(H)`` starts as the identity on them (and zero on the known
future inputs' features, when the run has any), so the untrained model
forecasts exactly what NARX predicts; training may then mix the horizons.

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_bool
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture
from seqlab.tasks import get_task

if TYPE_CHECKING:
    import keras


def build_narx(
    data: SequenceData, lag: int, units: int, layers: int, activation: str, residual: bool
) -> keras.Model:
    import numpy as np

    from seqlab.layers.narx import NARX
    from seqlab.models.task_model import build_task_model

    residual = check_bool("residual", residual)
    if lag > data.lookback:
        raise ValueError(
            f"lag must be at most the lookback ({data.lookback}) for model 'narx', got {lag}: the tapped "
            "delay line reads the last `lag` rows of the window; 0 uses the whole window."
        )
    lag = lag or data.lookback

    def body(x, sequences):
        narx = NARX(
            lag, units, layers=layers, activation=activation, target=data.target_index, outputs=data.horizon,
            residual=residual, return_sequences=sequences, name="narx",
        )
        return narx(x)  # (B, H): f^tau(y_{t-1..t-T}, x_{t-1..t-T}), tau = 0..H-1, scaled

    model = build_task_model(data, body, name="narx")
    head = model.get_layer(get_task(data.task).readout)
    known = head.kernel.shape[0] - data.horizon  # features of the known future inputs, if any: they start at 0
    identity = np.r_[np.eye(data.horizon), np.zeros((known, data.horizon))].astype("float32")
    head.set_weights([identity, np.zeros(data.horizon, dtype="float32")])
    return model


register_architecture(
    Architecture(
        name="narx",
        title="NARX (TDNN)",
        tasks=("forecast",),  # the target column's own past is an input: a series task
        family="NARX / TDNN",
        teaches=r"$\hat y_t = f(y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T})$; the same net at every step; "
                "residual form",
        description=(
            "The notes' NARX: one network on the tapped delay lines y_{t-1..t-T}, x_{t-1..t-T} (lag T; 0: "
            "the whole lookback), applied at every step as a 1-D convolution (TDNN); it predicts the next "
            "H steps directly, with residual true as y_{t-1} + f."
        ),
        build=build_narx,
        defaults={"lag": 0, "units": 32, "layers": 1, "activation": "tanh", "residual": False},
        choices={"activation": ("tanh", "relu", "sigmoid")},
        ranges={"lag": Range(0, 100_000, limit="max_sequence_length")},
    )
)
