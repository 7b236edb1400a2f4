r"""The linear ARX forecaster: least squares on the lagged window, no gradients.

The body is ``seqlab.layers.ARX`` on the scaled window (the task's
``Normalization`` sits before it, so the fit sees what the body sees and the
SavedModel still takes raw units); its ``H`` outputs are direct forecasts of
the next ``H`` steps, one linear map each. ``fit_arx`` solves

$$ [W^\top; c^\top] = \left(U^\top U + \lambda \tilde{I}\right)^{-1} U^\top Y $$

over the lagged inputs U of all training windows and their scaled targets Y,
and makes the task's head ``Dense(H)`` the identity, so the model's forecast
is the ARX's own. With known future inputs (a weather forecast) the head also
reads their hinge features phi; the same least squares then runs over
[U, Phi] jointly, and the head's rows for phi get their part of the solution:
a linear ARX with future inputs, still one solve.

Keras and the layer are imported inside the builder and the fit, so
registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_non_negative
from seqlab.data.sequence_data import SequenceData
from seqlab.models.closed_form import fit_in_closed_form
from seqlab.models.registry import Architecture, register_architecture
from seqlab.tasks import get_task

if TYPE_CHECKING:
    import keras


def build_arx(data: SequenceData, lag: int, ridge: float) -> keras.Model:
    from seqlab.layers.arx import ARX
    from seqlab.models.task_model import build_task_model

    check_non_negative("ridge", ridge)
    if lag > data.lookback:  # refused here, before any training
        raise ValueError(f"lag must be at most the lookback ({data.lookback}), got {lag}; 0 uses the whole window.")

    def body(x, sequences):
        return ARX(data.horizon, lag=lag or None, ridge=ridge, name="arx")(x)  # (B, H), scaled units

    return build_task_model(data, body, name="arx")


def fit_arx(model: keras.Model, data: SequenceData, spec, callbacks: list) -> None:
    """Closed-form fit: the ARX's least squares on every training window; the head passes it through."""
    import keras
    import numpy as np

    from seqlab.layers.recurrent import ridge_fit
    from seqlab.models.task_model import EVAL_BATCH_SIZE
    from seqlab.tasks.forecast import KNOWN_FEATURES

    task = get_task(data.task)
    arx, head = model.get_layer("arx"), model.get_layer(task.readout)
    train = data.splits["train"]
    targets = task.readout_targets(data, train.y)

    def solve() -> None:
        windows = keras.Model(model.inputs, arx.input).predict(train.inputs, batch_size=EVAL_BATCH_SIZE, verbose=0)
        if not data.known:
            arx.fit(windows, targets)
            head.set_weights([np.eye(data.horizon), np.zeros(data.horizon)])
        else:
            known = model.get_layer(KNOWN_FEATURES).output
            phi = keras.Model(model.inputs, known).predict(train.inputs, batch_size=EVAL_BATCH_SIZE, verbose=0)
            lagged = keras.ops.convert_to_numpy(arx.lagged(windows))
            W, c = ridge_fit(np.c_[lagged, phi], targets, ridge=arx.ridge)  # ((P + E), H): one joint solve
            arx.set_weights([W[: lagged.shape[1]], c])
            head.set_weights([np.r_[np.eye(data.horizon), W[lagged.shape[1] :]], np.zeros(data.horizon)])
        head.trainable = False  # fitted, not trained: a later model.fit must not move it either

    fit_in_closed_form(model, data, callbacks, solve)


register_architecture(
    Architecture(
        name="arx",
        title="Linear ARX (least squares)",
        tasks=("forecast",),
        family="NARX / TDNN",
        teaches="the linear special case, fitted by least squares (ARX)",
        description=(
            "A linear autoregression with exogenous inputs: each horizon step is a linear function of "
            "y_{t-1..t-T}, x_{t-1..t-T} (lag T; 0: the whole lookback), fitted in closed form by ridge "
            "least squares: trains in one step, the honest linear reference."
        ),
        build=build_arx,
        defaults={"lag": 0, "ridge": 30.0},  # ridge: the best of 0.001-1000 on energy's validation split
        ranges={"lag": Range(0, 100_000, limit="max_sequence_length"), "ridge": Range(0.0, 1e6)},
        fit=fit_arx,
    )
)
