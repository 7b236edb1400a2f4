"""The stepping protocol: declared by the architectures, asked for by everything else, and nowhere else."""

import re
from pathlib import Path

import numpy as np
import pytest

import seqlab
from seqlab.models.context_steps import ContextSteps
from seqlab.models.registry import ARCHITECTURES

PACKAGE = Path(seqlab.__file__).parent

# Choosing how to step a model by what it contains: a layer class tested with isinstance, a class-name
# whitelist, a table keyed by layer class, or a step implementation imported past the models.
STEPPING_LOOKUPS = {
    "isinstance on a stepping layer": re.compile(
        r"isinstance\([^)]*\b(RNN|TransformerDecoderBlock|MarkovChain|HMMNextToken|ESN|AttentionDecoder|"
        r"TransformerDecoder)\b"
    ),
    "a layer class-name whitelist": re.compile(r"__name__\s+(not\s+)?in\b"),
    "a table of steps by class": re.compile(r"type\([^)]*\)\s+(not\s+)?in\b"),
    "a step implementation imported": re.compile(
        r"from seqlab\.models\.(recurrent|gpt|context|hmm|decoder|seq2seq|transformer_seq2seq)_steps import"
    ),
}
# Where those may stand: each family's steps; and the architectures that declare them import them.
IMPLEMENTATIONS = {
    "models/recurrent_steps.py", "models/gpt_steps.py", "models/context_steps.py", "models/hmm_steps.py",
    "models/decoder_steps.py", "models/seq2seq_steps.py", "models/transformer_seq2seq_steps.py",
}
DECLARING = "models/"
# Inspect traces layers, not a model's steps: its probes are chosen per layer class
# (seqlab.inspect.trace.register_probe), as its views show each layer's own internals.
INSPECT = "inspect/"


def test_no_stepping_lookup_remains_outside_the_implementations():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in IMPLEMENTATIONS or name.startswith(INSPECT):
            continue
        lookups = {what: pattern for what, pattern in STEPPING_LOOKUPS.items()
                   if not (name.startswith(DECLARING) and what == "a step implementation imported")}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{name}:{number}: {what}" for what, pattern in lookups.items() if pattern.search(line)]
    assert not found, "choose the steps through seqlab.models.steps.steps_of:\n" + "\n".join(found)


def test_the_patterns_catch_what_the_four_steppers_did():
    # The lines that chose a stepper before the protocol (generate.py, stepper.py, decoder_steps.py).
    old = [
        "if any(isinstance(layer, keras.layers.RNN) for layer in model.layers):",
        "if not isinstance(layer, keras.layers.RNN) and type(layer).__name__ not in POSITION_WISE:",
        "if type(decoder) not in STEPS:",
        "from seqlab.models.gpt_steps import GPTSteps",
    ]
    assert all(any(p.search(line) for p in STEPPING_LOOKUPS.values()) for line in old)


def test_every_model_that_generates_translates_or_free_runs_declares_its_steps():
    steps = {arch.name for arch in ARCHITECTURES.list(lambda a: a.steps is not None)}
    stepped = {arch.name for arch in ARCHITECTURES.list(lambda a: {"language", "translate"} & set(a.tasks))}
    assert stepped | {"esn"} == steps


def test_a_model_of_no_architecture_or_one_that_reads_whole_sequences_is_refused():
    import keras

    from seqlab.data import load_dataset
    from seqlab.models import build_model
    from seqlab.models.registry import steps_of, steps_or_none

    plain = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)], name="plain")
    with pytest.raises(ValueError, match="'plain' was not built by a seqlab architecture"):
        steps_of(plain)
    sine = load_dataset("sine", length=120, lookback=6, horizon=2)
    with pytest.raises(ValueError, match="Windowed MLP.*cannot be run one step at a time"):
        steps_of(build_model("mlp", sine, {"units": 2}))
    assert steps_or_none(build_model("gru", sine, {"units": 2, "bidirectional": True})) is None


def test_context_steps_read_the_last_window_ids_and_carry_them():
    seen = []

    def probabilities_of(context):
        seen.append(context.copy())
        return np.ones((*context.shape, 4)) / 4  # (rows, n, V)

    steps = ContextSteps(probabilities_of, window=3)
    outputs, state = steps.read(np.array([[5, 6, 7, 8]]), steps.start(1))
    assert outputs.shape == (1, 3, 4) and state.tolist() == [[6, 7, 8]]
    output, state = steps.next(np.array([9]), state, 4)
    assert output.shape == (1, 4) and state.tolist() == [[7, 8, 9]] and seen[-1].tolist() == [[7, 8, 9]]
