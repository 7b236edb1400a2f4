import time

import pytest

from seqlab.training import ExperimentSpec
from seqlab.training.jobs import JobManager

TINY = dict(model_options={"units": 4}, data_options={"length": 400, "lookback": 12, "horizon": 4}, batch_size=8)


def test_jobs_run_one_at_a_time_and_cancel_stops_within_a_batch(runs_dir):
    manager = JobManager()
    first = manager.submit(ExperimentSpec("sine", "gru", epochs=200, **TINY))
    second = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    deadline = time.monotonic() + 60
    while not any(e["type"] == "batch" for e in first.events_since()):
        assert time.monotonic() < deadline, "no batch event within 60 s"
        time.sleep(0.05)
    assert first.status == "running" and second.status == "queued"
    assert manager.active() is first and manager.queued() == [second]
    assert 0 < first.progress()["fraction"] < 1
    first.cancel()
    manager.wait(first, timeout=60)
    assert first.status == "cancelled" and first.run.meta["epochs_run"] < 200
    manager.wait(second, timeout=60)
    assert second.status == "completed" and second.run is not None
    assert len(manager.store.list()) == 2


def test_a_failing_job_reports_instead_of_raising(runs_dir):
    manager = JobManager()
    job = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, data_options={"lookback": 5000}))
    manager.wait(job, timeout=60)
    assert job.status == "failed" and job.invalid and "lookback" in job.error
    assert job.events_since()[-1]["type"] == "error"


def test_submit_refuses_a_bad_spec_at_once(runs_dir):
    with pytest.raises(ValueError, match="epochs"):
        JobManager().submit(ExperimentSpec("sine", "mlp", epochs=0))


def test_a_cancelled_queued_job_never_starts(runs_dir):
    manager = JobManager()
    first = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    second = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    second.cancel()
    manager.wait(first, timeout=60)
    manager.wait(second, timeout=60)
    assert second.status == "cancelled" and second.run is None
