"""The recurrent and time-series lessons, in the lecture's order (registered on import).

A lesson's claims (``seqlab.lessons.claim``) measure their figures on its
finished runs; every number still typed in a notice is from its preset's runs,
trained on 2 CPU cores with ``python -m seqlab train --preset NAME`` (seed 0);
``seconds`` is that command's wall time, SavedModel export included, measured
while other jobs shared the cores (load average 6 to 9: an idle machine is faster).
"""

from __future__ import annotations

import numpy as np

from seqlab.lessons.claim import Claim
from seqlab.lessons.lesson import Lesson, register_lesson
from seqlab.lessons.measures import cell_arrays, run_data, run_of, score
from seqlab.training.presets import Preset
from seqlab.training.spec import ExperimentSpec
from seqlab.wording import counted

PYDOC = {"tokenizer": "char", "characters": 100_000}  # the first 100,000 characters of Python's help topics


def _adding(model: str, epochs: int) -> ExperimentSpec:
    # T = 50: the first marker is in the first half, 25 or more steps before the answer.
    return ExperimentSpec(
        "adding", model, data_options={"length_T": 50, "samples": 3000}, model_options={"units": 32},
        epochs=epochs, batch_size=32, learning_rate=1e-2,
    )


def _day_ahead(model: str, known_future: bool, **training) -> ExperimentSpec:
    # Every window starts at midnight (a stride of one day), as the day-ahead forecast is made.
    return ExperimentSpec("energy", model, data_options={"known_future": known_future, "stride": 48}, **training)


def _dates(bidirectional: bool) -> ExperimentSpec:
    return ExperimentSpec(
        "written_dates", "gru", model_options={"units": 32, "bidirectional": bidirectional}, epochs=4,
        learning_rate=1e-2,
    )


def _marks(x: np.ndarray) -> np.ndarray:
    """The adding problem's marked steps (0-based): its last feature is the marker."""
    return np.flatnonzero(x[:, -1] > 0.5)


def _test_error(model: str) -> Claim:
    def measure(runs):
        run = run_of(runs, model)
        return {"epochs": run.spec["epochs"], "mse": score(run, "mse"), "mean": score(run, "mse", "mean")}

    return Claim(
        "the cell learns the adding problem (test MSE far below the mean guess's)",
        measure,
        lambda f: (f"After {counted(f['epochs'], 'epoch')} the test MSE is {f['mse']:.2g} (always guessing the training mean: "
                   f"{f['mean']:.3g}){'' if f['mse'] < f['mean'] / 10 else ': it has not learned the task yet'}."),
        lambda f: f["mse"] < f["mean"] / 10,
    )


def steady_stretch(values: np.ndarray) -> tuple[int, int]:
    """The longest stretch of ``values`` (one unit over some steps) that moves one way: its first and last index."""
    signs = np.sign(np.diff(values))
    best, start = (0, 0), 0
    for k in range(1, len(signs) + 1):
        if k == len(signs) or signs[k] != signs[start]:
            best = max(best, (start, k), key=lambda stretch: stretch[1] - stretch[0])
            start = k
    return best


STEADY_STEPS = 4  # a unit moving one way over this many steps or more drifts "steadily"


def _carried(model: str, state: str) -> Claim:
    """The state over the first test sequence: how much it moves at the two marks, between them, and what the two
    units that move most between them do (a value written once and carried moves little against the write)."""
    symbol = {"c": ("the cell state", "cₜ"), "h": ("the state", "hₜ")}[state]

    def measure(runs):
        run = run_of(runs, model)
        x = np.asarray(run_data(run).splits["test"].x[0], dtype="float32")
        marks = _marks(x)
        if len(marks) < 2:
            raise ValueError("the first test sequence has fewer than two marks")
        first, second = (int(m) for m in marks[:2])
        values = cell_arrays(run, x)[state]
        moves = np.abs(np.diff(values, axis=0, prepend=np.zeros_like(values[:1])))  # |Δ| per step and unit
        between = values[first:second]  # from the first write to the step before the second
        ranges = between.max(axis=0) - between.min(axis=0)
        units = np.argsort(-ranges)[:2]
        stretches = []
        for u in units:
            a, b = steady_stretch(between[:, u])
            stretches.append([first + a + 1, first + b + 1, float(between[b, u] - between[a, u])])  # steps from 1
        return {"marks": [first + 1, second + 1], "units": values.shape[1],
                "at_marks": [float(moves[first].mean()), float(moves[second].mean())],
                "between": float(moves[first + 1 : second].mean()) if second > first + 1 else 0.0,
                "moving": [int(u) for u in units], "ranges": [float(ranges[u]) for u in units],
                "stretches": stretches, "write": float(moves[first].max())}

    def unit_text(unit, extent, stretch):
        start, end, change = stretch
        if end - start >= STEADY_STEPS:
            return f"unit {unit} drifts steadily from step {start} to step {end} (by {change:+.2g})"
        return f"unit {unit} moves back and forth (by up to {extent:.2g})"

    def say(f):
        (a, b), (at_a, at_b) = f["marks"], f["at_marks"]
        name, letter = symbol
        opening = (f"On the first test sequence (marks at steps {a} and {b}) {name} moves at the two marks (mean "
                   f"|Δ{letter}| over its {f['units']} units {at_a:.2g} and {at_b:.2g}) and by {f['between']:.2g} a "
                   "step between them")
        if holds(f):
            return f"{opening}: the value is written once and carried."
        units = " and ".join(unit_text(*each) for each in zip(f["moving"], f["ranges"], f["stretches"]))
        return (f"{opening}, but it is not simply written once and carried: between the marks {units}, against "
                f"{f['write']:.2g} for the largest write at the first mark.")

    def holds(f):
        return max(f["ranges"]) <= 0.5 * f["write"]

    return Claim("the value is written once at the marks and carried between them", measure, say, holds)


def _gate_at_marks(model: str, gate: str, opens: bool, sequences: int = 20) -> Claim:
    """A gate's mean over the units at the marked steps and elsewhere, over the first test sequences; ``opens``:
    the lesson's point is that it is higher at the marks."""
    names = {"i": "input gate", "z": "update gate"}

    def measure(runs):
        run = run_of(runs, model)
        loaded, test = run.load_model(), run_data(run).splits["test"]
        at, elsewhere = [], []
        for x in np.asarray(test.x[:sequences], dtype="float32"):
            values = cell_arrays(run, x, loaded)[gate].mean(axis=1)
            marked = x[:, -1] > 0.5
            at.append(values[marked])
            elsewhere.append(values[~marked])
        return {"sequences": len(at), "at_marks": float(np.concatenate(at).mean()),
                "elsewhere": float(np.concatenate(elsewhere).mean())}

    def holds(f):
        return (f["at_marks"] > f["elsewhere"]) == opens

    def say(f):
        compared = "higher" if f["at_marks"] > f["elsewhere"] else "lower"
        point = ("it lets the candidate in where a value must be written" if holds(f) else
                 "it does not open for the marked values")
        return (f"Over the first {f['sequences']} test sequences the {names[gate]} is {compared} at the marks "
                f"(mean {f['at_marks']:.2f}) than elsewhere ({f['elsewhere']:.2f}): {point}.")

    return Claim(f"the {names[gate]} is {'higher' if opens else 'lower'} at the marks", measure, say, holds)


LESSONS_HERE = (
    Lesson(
        topic="Markov chain and HMM",
        text=(
            "A **Markov chain** of order k reads the next character off a table of counts: how often each "
            "character followed the last k in the training text. A **hidden Markov model** puts a hidden state "
            "zₙ behind every character instead: the states form a chain (transitions A), each state emits "
            "characters (emissions B), and Baum-Welch fits both without ever seeing a state. Here a chain of "
            "order 1 and an HMM of 8 states read the first 100,000 characters of Python's help topics; both are "
            "scored in bits per character on held-out text, beside a chain of order 4 as their baseline."
        ),
        layers=("seqlab.layers.markov.MarkovChain", "seqlab.layers.markov.HMM"),
        preset=Preset(
            name="markov-hmm",
            title="A Markov chain of order 1 against a hidden Markov model, on Python's help text",
            description=(
                "A chain of order 1 (counting) and an HMM of 8 hidden states (20 Baum-Welch iterations) on the "
                "first 100,000 characters of pydoc's topics, scored in bits per character."
            ),
            specs=(
                ExperimentSpec("pydoc", "markov", data_options=PYDOC, model_options={"order": 1}),
                ExperimentSpec("pydoc", "hmm", data_options=PYDOC, model_options={"states": 8, "iterations": 20}),
            ),
        ),
        view="hmm-states",
        notice=(
            "The counting wins here. In bits per character on the held-out text: the chain of order 1 3.72, "
            "the HMM of 8 states 4.24, and the chain of order 4 (the best baseline in the table) 2.38. An "
            "HMM's state must carry everything it knows of the past, and 8 states know less than the last "
            "character does (the order-1 chain has one row per character of the vocabulary). Yet its states "
            "mean something: in the view one state emits spaces, line ends and punctuation and mostly stays "
            "in itself, others emit the vowels or the consonants. Rewrite the text and watch the posteriors "
            "follow."
        ),
        seconds=17.3,
    ),
    Lesson(
        topic="NARX and the energy forecast with weather",
        text=(
            "A **NARX** model forecasts a series from its own past and the past of exogenous inputs: "
            "ŷₜ = f(yₜ₋₁, …, yₜ₋T, xₜ₋₁, …, xₜ₋T). The lecture's example: at midnight, forecast the next 48 "
            "half-hours of Victoria's electricity demand from the last two days. Tomorrow's temperature "
            "forecast and whether it is a working day are known in advance, so they can enter too (hinge "
            "features let a linear map bend where heating and cooling start). The runs: the linear ARX, fitted "
            "by least squares, with and without tomorrow's weather, and a NARX network (a tapped-delay "
            "network of 32 units) with it."
        ),
        layers=("seqlab.layers.arx.ARX", "seqlab.layers.narx.NARX", "seqlab.layers.hinges.Hinges"),
        preset=Preset(
            name="narx-energy",
            title="Tomorrow's demand at midnight: ARX with and without the weather, and a NARX network",
            description=(
                "Day-ahead forecasts of Victoria's half-hourly demand (48 steps from the last 96): the linear ARX "
                "in closed form with and without the known future (temperature, working day), and a NARX "
                "network of 32 units given it (at most 40 epochs, early stop after 5)."
            ),
            specs=(
                _day_ahead("arx", True, model_options={"ridge": 10.0}),
                _day_ahead("arx", False, model_options={"ridge": 10.0}),
                _day_ahead("narx", True, model_options={"units": 32}, epochs=40, learning_rate=3e-3,
                           early_stopping=5),
            ),
        ),
        view="day-ahead",
        notice=(
            "Tomorrow's weather nearly halves the error: the ARX given it forecasts the 54 test days with an MAE "
            "of 0.161 GW (MAPE 3.67 %), without it 0.284 GW (6.40 %), and the seasonal naive of last week "
            "0.322 GW. The NARX network given the weather reaches 0.162 GW after 40 epochs: no better than "
            "the linear fit, in more time. Day by day, the ARX with the weather is closer on 46 of the 54 test "
            "days; the view opens on Friday 5 December (MAE 0.13 GW with it, 0.31 GW without); Saturday 27 "
            "December, after Christmas, is the widest gap (0.11 against 0.57 GW)."
        ),
        seconds=18.1,
    ),
    Lesson(
        topic="Elman RNN and vanishing gradients",
        text=(
            "The **Elman RNN** carries one state, zₜ = sig(B zₜ₋₁ + V xₜ + b). Backpropagation through time "
            "multiplies one Jacobian ∂zₜ/∂zₜ₋₁ = diag(sig′) B per step; when they shrink, the gradient "
            "reaching an input k steps back shrinks geometrically in k (it **vanishes**), and the network "
            "cannot learn from it. The **adding problem** needs exactly that: read 50 random numbers, two of "
            "them marked, and output the sum of the marked two; the first mark is in the first half. An Elman "
            "RNN and an LSTM of 32 units, the same budget (8 epochs of 2,400 sequences)."
        ),
        layers=("seqlab.layers.recurrent.SimpleRNNCell",),
        preset=Preset(
            name="elman-vanishing",
            title="The adding problem (T = 50): the Elman RNN's gradient vanishes, the LSTM's does not",
            description=(
                "The adding problem with T = 50, 32 units and 8 epochs each for the Elman RNN and the LSTM; "
                "then ‖∂L/∂hₜ‖ through time on one test sequence."
            ),
            specs=(_adding("simple_rnn", 8), _adding("lstm", 8)),
        ),
        view="gradients-through-time",
        notice=(
            "The Elman RNN stays at the constant guess (test MSE 0.192; always answering the training mean "
            "scores 0.183) while the LSTM learns the task in its 7th epoch (test MSE 0.0052). The view shows "
            "why, on the first test sequence (marks at steps 1 and 30): the Elman RNN's ‖∂L/∂hₜ‖ falls by a "
            "factor of about 10²¹ from the last step to the first, the LSTM's by a factor of 78. Nothing of "
            "what the first mark should teach reaches the Elman RNN's weights."
        ),
        seconds=21.9,
    ),
    Lesson(
        topic="LSTM gates",
        text=(
            "The **LSTM** keeps a cell state cₜ that changes additively, cₜ = fₜ ⊙ cₜ₋₁ + iₜ ⊙ c̃ₜ: the "
            "**forget gate** fₜ decides what to keep, the **input gate** iₜ what to write, the **output gate** "
            "oₜ what the hidden state hₜ = oₜ ⊙ tanh(cₜ) shows. While fₜ stays near 1 the gradient along cₜ "
            "is not multiplied down at every step. Trained on the adding problem (T = 50), it must write the "
            "two marked values into its cell and carry them to the end."
        ),
        layers=("seqlab.layers.recurrent.LSTMCell",),
        preset=Preset(
            name="lstm-gates",
            title="An LSTM on the adding problem: its gates and cell state over one sequence",
            description="The adding problem with T = 50: one LSTM of 32 units, 10 epochs.",
            specs=(_adding("lstm", 10),),
        ),
        view="gates",
        notice=(
            "Watch cₜ at the two marked steps and between them, and the input gate iₜ at the marks. Move a mark "
            "in the input table and the steps in cₜ move with it."
        ),
        seconds=21.2,
        claims=(_test_error("lstm"), _carried("lstm", "c"), _gate_at_marks("lstm", "i", opens=True)),
    ),
    Lesson(
        topic="GRU",
        text=(
            "The **GRU** has two gates and no separate cell. The **update gate** zₜ mixes the old state and a "
            "candidate, hₜ = zₜ ⊙ hₜ₋₁ + (1 − zₜ) ⊙ h̃ₜ (Keras's convention: zₜ near 1 keeps the old state), "
            "and the **reset gate** rₜ decides how much of the old state the candidate reads. Fewer weights "
            "than the LSTM for the same units. The same adding problem (T = 50), 6 epochs."
        ),
        layers=("seqlab.layers.recurrent.GRUCell",),
        preset=Preset(
            name="gru-gates",
            title="A GRU on the adding problem: its update and reset gates over one sequence",
            description="The adding problem with T = 50: one GRU of 32 units, 6 epochs.",
            specs=(_adding("gru", 6),),
        ),
        view="gates",
        notice=(
            "Watch hₜ at the two marked steps and between them, and the update gate zₜ: near 1 it keeps the old "
            "state, lower it lets the candidate in."
        ),
        seconds=14.1,
        claims=(_test_error("gru"), _carried("gru", "h"), _gate_at_marks("gru", "z", opens=False)),
    ),
    Lesson(
        topic="Echo state network",
        text=(
            "An **echo state network** never trains its recurrence: the reservoir's weights B and V are drawn "
            "at random and fixed (B scaled to a chosen spectral radius), each input echoes through it, and "
            "only the linear readout W is fitted, in closed form by ridge regression. On the chaotic "
            "Mackey-Glass series (τ = 17), forecast 20 steps ahead from the last 100: a reservoir of 300 units "
            "against an LSTM of 32 units trained by gradient descent for 5 epochs."
        ),
        layers=("seqlab.layers.recurrent.ESNCell", "seqlab.layers.recurrent.ESNReadout"),
        preset=Preset(
            name="esn-reservoir",
            title="Echo state network on Mackey-Glass: a random reservoir and a closed-form readout",
            description=(
                "Mackey-Glass (τ = 17), 20 steps ahead from the last 100: an echo state network of 300 units "
                "(one ridge regression) against an LSTM of 32 units (5 epochs)."
            ),
            specs=(
                ExperimentSpec("mackey_glass", "esn", model_options={
                    "units": 300, "spectral_radius": 1.25, "leak_rate": 0.3, "input_scaling": 0.5,
                    "connectivity": 0.1, "ridge": 1e-8,
                }),
                ExperimentSpec("mackey_glass", "lstm", model_options={"units": 32}, epochs=5, learning_rate=1e-2),
            ),
        ),
        view="reservoir",
        notice=(
            "The reservoir nobody trained wins by two orders of magnitude: test MAE 0.00014 for the echo state "
            "network, fitted by one ridge regression in less than half the LSTM's training time (the train s "
            "column), against 0.020 for the LSTM after 5 epochs; the naive forecast scores 0.22. In the view the reservoir's units echo the input at their own "
            "paces; the readout only weighs them."
        ),
        seconds=15.2,
    ),
    Lesson(
        topic="Bidirectional labelling",
        text=(
            "Tag every character of a date written in words as day, month, year or other. A left-to-right "
            "GRU must tag character t having read only the characters up to t; a **bidirectional** layer runs "
            "a second GRU from the end and concatenates the two states, so each tag reads the whole text. "
            "\"twenty\" after \"march \" is the day in \"march twenty-three, …\" but the year in \"march "
            "twenty twenty-three\": only what follows tells. The same GRU of 32 units, one way and both ways, "
            "4 epochs."
        ),
        layers=("seqlab.layers.recurrent.GRUCell",),
        preset=Preset(
            name="bidirectional-dates",
            title="Dates in words, tagged character by character: a GRU one way and both ways",
            description=(
                "Written dates (3,000, a tenth held out), one tag per character: a GRU of 32 units forwards "
                "only, and bidirectional; 4 epochs each."
            ),
            specs=(_dates(False), _dates(True)),
        ),
        view="directions",
        notice=(
            "The forward GRU tags 96.3 % of the test characters right, but 140 of the 300 test dates have at "
            "least one wrong tag, 120 of them where a number follows the month's name: in \"june three, "
            "nineteen nineteen\" it calls the \"t\" of \"three\" a year (\"twenty ten\" begins the same "
            "way) and gets \"three\" right only from its third letter. The bidirectional GRU tags every "
            "character of all 300 right (100 %). In the view, the backward state at that letter has already "
            "read what follows."
        ),
        seconds=27.5,
    ),
)

for _lesson in LESSONS_HERE:
    register_lesson(_lesson)
