"""The training spine's options for fast Transformers: AdamW's decay, warm-up and cosine, a step budget, XLA."""

import keras
import numpy as np
import pytest

from seqlab.training import ExperimentSpec
from seqlab.training.experiment import shuffled_batches
from seqlab.training.optimizer import learning_rate, make_optimizer, total_steps


def test_a_spec_saved_before_these_fields_loads_with_the_old_behaviour():
    old = {"dataset": "sine", "model": "gru", "epochs": 2, "optimizer": "adam", "learning_rate": 0.01}
    spec = ExperimentSpec.from_dict(old).resolved()
    assert (spec.weight_decay, spec.schedule, spec.warmup_steps, spec.steps) == (0.0, "constant", 0, 0)
    assert spec.jit_compile is False and spec.steps_per_execution == 1
    assert learning_rate(spec, 100) == 0.01 and total_steps(spec, 130) == 2 * 3  # 130 windows: 3 batches of 64


@pytest.mark.parametrize("changes, message", [
    ({"schedule": "linear"}, "Unknown schedule 'linear'; valid schedules: constant, cosine"),
    ({"warmup_steps": 10}, "warmup_steps needs schedule 'cosine'"),
    ({"steps": 3, "epochs": 5}, "steps=3 cannot be split into 5 epochs"),
    ({"jit_compile": "yes"}, "jit_compile must be true or false"),
    ({"weight_decay": -0.1}, "weight_decay must lie in"),
    ({"steps_per_execution": 0}, "steps_per_execution must lie in"),
    ({"steps": 1.5}, "steps must be an integer"),
])
def test_bad_training_options_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        ExperimentSpec("sine", "gru", **changes).resolved()


def test_cosine_warms_up_from_zero_then_decays_to_a_tenth():
    spec = ExperimentSpec("sine", "gru", learning_rate=1e-3, schedule="cosine", warmup_steps=10, steps=110).resolved()
    rate = learning_rate(spec, total_steps(spec, 1_000))
    at = [float(rate(step)) for step in (0, 5, 10, 60, 110)]
    np.testing.assert_allclose(at, [0.0, 5e-4, 1e-3, 5.5e-4, 1e-4], rtol=1e-5)


def test_adamw_decays_the_weight_matrices_only():
    spec = ExperimentSpec("sine", "gru", optimizer="adamw", weight_decay=0.1).resolved()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.LayerNormalization()])
    optimizer = make_optimizer(spec, 10, model)
    assert isinstance(optimizer, keras.optimizers.AdamW) and optimizer.weight_decay == 0.1
    decayed = {v.name: optimizer._use_weight_decay(v) for v in model.trainable_variables}
    assert decayed == {"kernel": True, "bias": False, "gamma": False, "beta": False}


def test_shuffled_batches_visit_every_window_once_a_pass():
    x, y = np.arange(12)[:, None], np.arange(12)
    batches = list(shuffled_batches(x, y, 4, seed=0).take(6))  # two passes of three batches
    first, second = (np.concatenate([b[1].numpy() for b in batches[k : k + 3]]) for k in (0, 3))
    assert sorted(first) == sorted(second) == list(range(12)) and list(first) != list(range(12))


@pytest.mark.parametrize("name", ["adamw", "adam", "sgd"])
def test_weight_decay_zero_means_none_for_every_optimizer(name):
    optimizer = make_optimizer(ExperimentSpec("sine", "gru", optimizer=name).resolved())
    assert not optimizer.weight_decay  # AdamW gets 0.0, not its own default of 0.004; the others None
