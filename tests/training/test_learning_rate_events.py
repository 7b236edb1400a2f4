"""The learning rate of every batch, from the optimizer's schedule, in the events and the run's history."""

import numpy as np
import pytest

from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.optimizer import learning_rate


def test_batch_events_carry_the_scheduled_rate_warm_up_then_cosine(runs_dir):
    spec = ExperimentSpec("sine", "mlp", {"length": 400, "lookback": 8, "horizon": 2}, {"units": 4, "layers": 1},
                          epochs=3, batch_size=32, learning_rate=1e-2, schedule="cosine", warmup_steps=4)
    events = []
    run = run_experiment(spec, on_event=events.append, savedmodel=False)
    batches = [e for e in events if e["type"] == "batch"]
    rates = np.array([b["learning_rate"] for b in batches])
    schedule = learning_rate(spec.resolved(), len(batches))
    expected = np.array([float(schedule(i)) for i in range(len(batches))])  # batch i applies the rate at step i
    np.testing.assert_allclose(rates, expected, rtol=1e-5, atol=1e-9)
    assert rates[0] == 0 and rates[4] == pytest.approx(1e-2)  # warm-up from 0 to the peak
    assert np.all(np.diff(rates[4:]) < 0) and rates[-1] > 1e-3  # cosine decay towards a tenth
    history = run.history
    assert [b["learning_rate"] for b in history["batch"]] == pytest.approx(rates.tolist())
    last = max(b["step"] for b in batches)  # an epoch logs its last batch's rate
    assert [e["learning_rate"] for e in history["epoch"]] == pytest.approx(
        [b["learning_rate"] for b in batches if b["step"] == last])


def test_a_constant_rate_and_tbptt_report_it_too(runs_dir):
    spec = ExperimentSpec("sine", "lstm", {"length": 300, "lookback": 8, "horizon": 2}, {"units": 3},
                          epochs=1, batch_size=4, learning_rate=3e-3, tbptt=[4, 4])
    events = []
    run_experiment(spec, on_event=events.append, savedmodel=False)
    rates = [e["learning_rate"] for e in events if e["type"] in ("batch", "epoch")]
    assert len(rates) > 2 and rates == pytest.approx([3e-3] * len(rates))
