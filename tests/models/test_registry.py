"""build_model: the one place every architecture is built, inside the server's weight limit."""

import math

import pytest

import seqlab.weight_budget
from seqlab.models import build_model


def test_a_model_past_max_parameters_is_refused_before_its_weights_are_made(tiny, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "3000")
    made = []
    real = seqlab.weight_budget._add_weight

    def making(layer, *args, **kwargs):  # the weights Keras actually makes
        made.append(math.prod(kwargs.get("shape", args[0] if args else ())))
        return real(layer, *args, **kwargs)

    monkeypatch.setattr(seqlab.weight_budget, "_add_weight", making)
    options = {"units": 64, "layers": 8, "bidirectional": True}  # about 730,000 weights
    with pytest.raises(ValueError, match=r"asks for more than 3,000 weights, the limit \(.*SEQLAB_MAX_PARAMETERS.*"
                                         r"reduce units or layers"):
        build_model("lstm", tiny["forecast"], options)
    assert sum(made) <= 3000  # the first LSTM's kernel (4 x 64 x 1 weights) fits, its recurrent kernel does not

    made.clear()
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "1000000")
    model = build_model("lstm", tiny["forecast"], options)
    assert sum(made) == model.count_params() <= 1_000_000  # the count is Keras's own
