"""Numeric sequences of different lengths: padded with zeros, masked inside the model, padding never read."""

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.sample_source import Samples, sample_data
from seqlab.models import build_model

LENGTHS = [5, 2, 4, 3, 5, 1]
CLASSES = ("short", "long")


def sequences(rng):
    return [rng.normal(2.0, 1.5, (n, 3)).astype("float32") for n in LENGTHS]


def masked_data(cases, T, task="classify"):
    """The cases padded with zeros to T steps; one split serves as train, val and test."""
    x = np.zeros((len(cases), T, 3), dtype="float32")
    mask = np.zeros((len(cases), T), dtype=bool)
    for i, case in enumerate(cases):
        x[i, : len(case)], mask[i, : len(case)] = case, True
    y = np.array([int(len(c) > 3) for c in cases]) if task == "classify" else mask.astype("int64")
    samples = Samples(x, y, ("a", "b", "c"), "size", CLASSES, mask=mask)
    n = len(cases)
    bounds = {"train": (0, n), "val": (0, n), "test": (0, n)}
    return sample_data("tiny_masked", task, samples, {}, True, bounds, {})


CASES = [
    ("simple_rnn", "classify", {"units": 4}),
    ("lstm", "classify", {"units": 4, "layers": 2}),
    ("gru", "classify", {"units": 4, "bidirectional": True}),
    ("gru", "label", {"units": 4, "bidirectional": True}),
    ("cnn", "classify", {"filters": 3, "min_width": 2, "max_width": 3}),
    ("cnn", "label", {"filters": 3, "min_width": 1, "max_width": 3}),
    ("mean_embedding", "classify", {"units": 3}),
]


@pytest.mark.parametrize("arch, task, options", CASES)
def test_a_padded_sequence_is_predicted_as_the_unpadded_one(arch, task, options):
    cases = sequences(np.random.default_rng(0))
    padded_model = build_model(arch, masked_data(cases, T=9, task=task), options)
    unpadded_model = build_model(arch, masked_data(cases, T=5, task=task), options)
    unpadded_model.set_weights(padded_model.get_weights())  # no weight depends on T; the same scaler
    padded, alone = masked_data(cases, T=9).splits["test"].x, masked_data(cases, T=5).splits["test"].x
    seen = padded_model.predict(padded, verbose=0)
    expected = unpadded_model.predict(alone, verbose=0)
    if task == "label":  # a tag per step: the real steps agree
        mask = masked_data(cases, T=5).splits["test"].mask
        seen, expected = seen[:, :5][mask], expected[mask]
    np.testing.assert_allclose(seen, expected, rtol=1e-5, atol=1e-6)
    assert padded_model.get_layer("padding_mask") is not None


def test_the_padding_is_left_out_of_the_scaling_statistics():
    cases = sequences(np.random.default_rng(1))
    data = masked_data(cases, T=9)
    real = np.concatenate(cases)
    np.testing.assert_allclose(data.scaler.mean, real.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(data.scaler.std, real.std(axis=0), rtol=1e-4)
    assert (data.splits["train"].mask.sum(axis=1) == LENGTHS).all()


def test_sequences_of_one_length_get_no_masking_layer():
    model = build_model("gru", load_dataset("digits"), {"units": 2})
    assert "padding_mask" not in [layer.name for layer in model.layers]


@pytest.mark.parametrize(
    "step, value, message",
    [
        ((0, 7), 1.0, "The padded steps of the sequences must be zeros"),  # sequence 0 has 5 real steps
        ((1, 0), 0.0, "A real step of a sequence has every feature exactly 0"),
    ],
)
def test_padding_that_a_model_could_not_find_is_refused(step, value, message):
    train = masked_data(sequences(np.random.default_rng(2)), T=9).splits["train"]
    x = train.x.copy()
    x[step] = value
    samples = Samples(x, train.y, ("a", "b", "c"), "size", CLASSES, mask=train.mask)
    with pytest.raises(ValueError, match=message):
        sample_data("bad", "classify", samples, {}, True, {"train": (0, 6), "val": (0, 6), "test": (0, 6)}, {})
