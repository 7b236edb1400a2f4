"""The state-space lesson (registered on import): S4D's long memory against the LSTM's, at about equal weights.

Every number quoted in the lesson's notice is from its preset's runs, trained
on 2 CPU cores with ``python -m seqlab train --preset state-space-memory``
(seed 0); ``seconds`` is that command's wall time, SavedModel export included,
measured while other jobs shared the cores (load average about 4).
"""

from __future__ import annotations

from seqlab.lessons.lesson import Lesson, register_lesson
from seqlab.training.presets import Preset
from seqlab.training.spec import ExperimentSpec

ADDING_T = 100  # twice the recurrent lessons' T: the first mark is 50 or more steps before the answer


def _adding(model: str, model_options: dict) -> ExperimentSpec:
    return ExperimentSpec(
        "adding", model, data_options={"length_T": ADDING_T, "samples": 3000}, model_options=model_options,
        epochs=8, batch_size=32, learning_rate=1e-2,
    )


# About equal weights: 4,201 (S4D: H = 20 channels, N = 16 modes, 2 layers) against 4,513 (LSTM, 32 units).
S4D = {"width": 20, "state_size": 16, "layers": 2}
LSTM = {"units": 32}

register_lesson(
    Lesson(
        topic="State-space models and long memory",
        text=(
            "A **linear state-space layer** gives every channel its own state xₜ, updated by a fixed linear "
            "recurrence xₜ = Ā xₜ₋₁ + B̄ uₜ and read out as yₜ = Re(C xₜ) + D uₜ. In **S4D** the matrix A is "
            "diagonal, so each of its N modes decays (and, complex, turns) at its own rate, from fast to slow: "
            "some modes keep what they read for hundreds of steps. Because the recurrence is linear and the same "
            "at every step, it is also one long convolution, yₜ = Σₖ K̄ₖ uₜ₋ₖ, which is how it trains: no "
            "gradient is multiplied through a nonlinearity at every step. Here an S4D of 2 layers and an LSTM "
            "of 32 units, with about the same number of weights (4,201 and 4,513), get the same budget (8 "
            f"epochs of 2,400 sequences) on the adding problem with T = {ADDING_T}: the first mark is 50 or "
            "more steps before the answer."
        ),
        layers=("seqlab.layers.state_space.DiagonalStateSpace", "seqlab.layers.recurrent.LSTMCell"),
        preset=Preset(
            name="state-space-memory",
            title=f"The adding problem (T = {ADDING_T}): an S4D against an LSTM at about equal weights",
            description=(
                f"The adding problem with T = {ADDING_T}, 8 epochs each for an S4D (2 layers, 20 channels, 16 "
                "modes: 4,201 weights) and an LSTM (32 units: 4,513 weights); then the S4D's state over one "
                "test sequence."
            ),
            specs=(_adding("s4d", S4D), _adding("lstm", LSTM)),
        ),
        view="state-space-memory",
        notice=(
            "After 8 epochs the S4D's test MSE is 0.0129, the LSTM's 0.149: the LSTM is still at the mean guess "
            "(0.150), its training loss only starting to fall (0.170 to 0.168 over epochs 2 to 8). That is this "
            "budget, not the LSTM's limit: given more epochs it may learn the task. On the first test sequence "
            "(marks at steps 46 and 88, sum 0.799) the S4D answers 0.799, the LSTM 0.989. In the view, the "
            "second layer's state moves where a mark is read and holds still between: over the first 20 test "
            "sequences its mean change |Δ|xₜ|| is 0.0126 at the marks against 0.0011 elsewhere. Its first "
            "layer's modes keep what they read for 9 to 2,001 steps (1 / (Δ e^α), the steps to decay by e); "
            "186 of its 320 keep it longer than the sequence's 100 steps."
        ),
        seconds=54.8,
    )
)
