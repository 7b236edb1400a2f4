r"""The echo state network: a random, fixed reservoir and a readout fitted by ridge regression.

As the notes put it, B and V are random and fixed and only W is trained, by
linear regression, not by gradient descent. Each window drives the reservoir
(``seqlab.layers.recurrent.ESN``) from z_0 = 0; its last state z_T feeds the
task's linear readout, whose weights ``fit_readout`` sets in closed form:

$$ [W; c] = \left(Z^\top Z + \lambda I\right)^{-1} Z^\top Y $$

over the states Z of all training windows and the readout's targets Y
(the bias c is not penalised). The lookback T is the washout: a window must be
long enough for z_T to forget the zero start (spectral radius and leak rate
decide how long that is).

Keras and the layers are imported inside the builder and the fit, so registering
the architecture does not import TensorFlow.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from seqlab.checks import Range, check_non_negative
from seqlab.data.sequence_data import SequenceData
from seqlab.limits import check_memory, check_work
from seqlab.models.closed_form import fit_in_closed_form
from seqlab.models.registry import Architecture, register_architecture
from seqlab.tasks import get_task

if TYPE_CHECKING:
    import keras

# The fit keeps every training window's last state z_T: float32 from predict (its batches, then joined) and
# float64 twice in ridge_fit (Z, then Z with the bias column), 24 bytes a state. Running the reservoir costs a
# multiply-add per step and recurrent or input weight: measured 0.02 to 0.05 ns each (float32, 2 cores).
BYTES_PER_STATE = 24
SECONDS_PER_WEIGHT_STEP = 0.05e-9


def check_reservoir(data: SequenceData, units: int) -> None:
    """Refuse a fit whose reservoir states or runs, estimated from the windows and ``units``, pass the limits.

    The windows themselves are within ``max_data_mb`` (``check_data_size``), but a window of T steps gives
    ``units`` states, up to ``units / T`` times its own size, and the reservoir runs over the training windows
    twice (their states, then the fit's score) and over the validation and test windows once.
    """
    train = data.splits["train"].x
    windows, steps, features = len(train), train.shape[1], math.prod(train.shape[2:])
    runs = 2 * windows + sum(len(data.splits[s].x) for s in ("val", "test"))
    fewer = "use fewer units, or fewer or shorter windows (a shorter series, lookback or a larger stride)"
    check_memory(windows * units * BYTES_PER_STATE,
                 f"the reservoir states of {windows:,} training windows x {units:,} units", fewer)
    check_work(runs * steps * units * (units + features) * SECONDS_PER_WEIGHT_STEP,
               f"running a reservoir of {units:,} units over {runs:,} windows of {steps:,} steps", fewer)


def build_esn(
    data: SequenceData, units: int, spectral_radius: float, leak_rate: float, input_scaling: float,
    connectivity: float, ridge: float,
) -> keras.Model:
    from seqlab.layers.recurrent import ESN
    from seqlab.models.task_model import build_task_model

    check_non_negative("ridge", ridge)  # used by fit_readout; refused here, before any training
    check_reservoir(data, units)  # before the reservoir is drawn: its fit is one long step

    def body(x, sequences):
        reservoir = ESN(
            units, spectral_radius=spectral_radius, leak_rate=leak_rate, input_scaling=input_scaling,
            connectivity=connectivity, return_sequences=sequences, name="reservoir",
        )
        return reservoir(x)  # (B, units): z_T

    return build_task_model(data, body, name="esn")


def fit_readout(model: keras.Model, data: SequenceData, spec, callbacks: list) -> None:
    """Closed-form fit: the readout's ridge regression on the states of every training window."""
    from seqlab.layers.recurrent import ridge_fit
    from seqlab.models.task_model import EVAL_BATCH_SIZE

    task = get_task(data.task)
    readout = model.get_layer(task.readout)
    train = data.splits["train"]

    def solve() -> None:
        import keras

        states = keras.Model(model.inputs, readout.input).predict(train.inputs, batch_size=EVAL_BATCH_SIZE, verbose=0)
        W, c = ridge_fit(states, task.readout_targets(data, train.y), ridge=spec.model_options["ridge"])  # (units, H)
        readout.set_weights([W, c])
        readout.trainable = False  # fitted, not trained: a later model.fit must not move it either

    fit_in_closed_form(model, data, callbacks, solve)


def esn_steps(model: keras.Model):
    """The reservoir continued from the end of the window, the readout on every state: the free run
    (``seqlab.models.recurrent_steps``)."""
    from seqlab.models.recurrent_steps import RecurrentSteps

    return RecurrentSteps(model, free_runs=True)  # the notes' closed loop, on the states the readout was fitted to


register_architecture(
    Architecture(
        name="esn",
        title="Echo state network",
        tasks=("forecast", "regress"),  # a linear readout: real-valued outputs
        family="Echo state network",
        teaches=r"random fixed reservoir, spectral radius $\rho(W) < 1$; only the read-out is trained",
        description=(
            "A random, fixed, sparse reservoir (spectral radius, leak rate, input scaling) and a linear "
            "readout fitted in closed form by ridge regression: trains in one step, no gradients."
        ),
        build=build_esn,
        defaults={
            "units": 200, "spectral_radius": 0.9, "leak_rate": 0.3, "input_scaling": 1.0,
            "connectivity": 0.1, "ridge": 1e-6,
        },
        ranges={
            # The reservoir's spectral radius is found by an eigen-decomposition, cubic in units.
            "units": Range(1, 2000), "spectral_radius": Range(0.01, 10.0), "leak_rate": Range(0.01, 1.0),
            "input_scaling": Range(0.001, 100.0), "connectivity": Range(0.01, 1.0), "ridge": Range(0.0, 1e6),
        },
        fit=fit_readout,
        steps=esn_steps,
    )
)
