"""The time a job will take, from an earlier run of the same setting."""

from types import SimpleNamespace

from seqlab.app.estimate import batches, training_time
from seqlab.training import ExperimentSpec


def _run(run_id, created, seconds, epochs_run, status="completed", **spec):
    spec = ExperimentSpec("sine", "gru", {"lookback": 10}, {"units": 8}, **spec)
    meta = SimpleNamespace(created=created, train_seconds=seconds, epochs_run=epochs_run)
    return SimpleNamespace(run_id=run_id, status=status, meta=meta, spec=spec.to_dict())


def test_batches_count_epochs_or_the_step_budget():
    assert batches(ExperimentSpec("sine", "gru", epochs=3, batch_size=10), 95) == 30
    assert batches(ExperimentSpec("sine", "gru", epochs=4, steps=100), 95) == 100
    assert batches(ExperimentSpec("sine", "gru", epochs=4, steps=100), 95, epochs=1) == 25


def test_the_newest_finished_run_of_the_same_setting_gives_the_rate():
    now = ExperimentSpec("sine", "gru", {"lookback": 10}, {"units": 8}, epochs=4, batch_size=10)
    runs = [
        _run("old", "2026-01-01", 100.0, 2, epochs=2, batch_size=10),
        _run("new", "2026-02-01", 10.0, 1, epochs=2, batch_size=10),  # cancelled after 1 epoch of 2
        _run("failed", "2026-03-01", 1.0, 1, status="diverged", epochs=1, batch_size=10),
    ]
    estimate = training_time(runs, now, 95)
    assert estimate.run_id == "new" and estimate.seconds == 10.0 / 10 * 40
    other = ExperimentSpec("sine", "gru", {"lookback": 10}, {"units": 9}, epochs=4, batch_size=10)
    assert training_time(runs, other, 95) is None
