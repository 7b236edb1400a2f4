import time

import pytest

from seqlab.runs import RunStore
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
    assert first.status == "cancelled" and first.run.meta.epochs_run < 200
    manager.wait(second, timeout=60)
    assert second.status == "completed" and second.run is not None
    assert len(manager.store.list()) == 2


def test_a_failing_job_reports_instead_of_raising(runs_dir):
    manager = JobManager()
    job = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, data_options={"lookback": 1500}))
    manager.wait(job, timeout=60)
    assert job.status == "failed" and job.invalid and "lookback" in job.error
    assert job.events_since()[-1]["type"] == "error"


def test_submit_refuses_a_bad_spec_at_once(runs_dir):
    with pytest.raises(ValueError, match="epochs"):
        JobManager().submit(ExperimentSpec("sine", "mlp", epochs=0))


def test_submit_refuses_a_store_no_run_could_be_written_to(tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    manager = JobManager(RunStore(tmp_path / "a_file" / "runs"))
    with pytest.raises(ValueError, match="cannot be made below .*a_file"):
        manager.submit(ExperimentSpec("sine", "gru", epochs=1, **TINY))
    assert manager.jobs == []


def test_a_cancelled_queued_job_never_starts(runs_dir):
    manager = JobManager()
    first = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    second = manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    second.cancel()
    manager.wait(first, timeout=60)
    manager.wait(second, timeout=60)
    assert second.status == "cancelled" and second.run is None


def _until(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met within the timeout"
        time.sleep(0.05)


def _training(job):
    return any(e["type"] == "batch" for e in job.events_since())


def test_one_slot_makes_a_second_session_wait_its_turn(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", "1")
    alice, bob = JobManager(), JobManager()  # two browser sessions, one process
    first = alice.submit(ExperimentSpec("sine", "gru", epochs=200, **TINY))
    _until(lambda: _training(first))
    second = bob.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    _until(lambda: second.status == "waiting")
    assert second.position == 1 and bob.active() is second and alice.active() is first
    time.sleep(0.5)
    assert second.status == "waiting" and not second.events_since()  # still not started
    first.cancel()
    bob.wait(second, timeout=60)
    assert first.status == "cancelled" and second.status == "completed" and second.position is None
    assert second.started >= first.finished - 0.01  # trained only once the slot was free


def test_a_waiting_job_can_be_cancelled(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", "1")
    alice, bob, carol = JobManager(), JobManager(), JobManager()
    first = alice.submit(ExperimentSpec("sine", "gru", epochs=200, **TINY))
    _until(lambda: _training(first))
    second = bob.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    _until(lambda: second.position == 1)
    third = carol.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    _until(lambda: (second.position, third.position) == (1, 2))
    second.cancel()
    bob.wait(second, timeout=10)
    assert second.status == "cancelled" and second.run is None
    _until(lambda: third.position == 1)  # moved up
    first.cancel()
    alice.wait(first, timeout=60)
    carol.wait(third, timeout=60)
    assert third.status == "completed"


def test_more_slots_train_side_by_side(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", "2")
    managers = [JobManager(), JobManager()]
    jobs = [m.submit(ExperimentSpec("sine", "gru", epochs=200, **TINY)) for m in managers]
    _until(lambda: all(_training(j) for j in jobs))
    assert [j.status for j in jobs] == ["running", "running"]
    for job in jobs:
        job.cancel()
    for manager, job in zip(managers, jobs):
        manager.wait(job, timeout=60)


def test_a_session_cannot_queue_without_end(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_QUEUED_JOBS", "2")
    manager = JobManager()
    jobs = [manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY)) for _ in range(2)]
    with pytest.raises(ValueError, match="2 jobs are already running or queued, the limit is 2 .*cancel one"):
        manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY))
    for job in jobs:
        manager.wait(job, timeout=60)
    manager.wait(manager.submit(ExperimentSpec("sine", "mlp", epochs=1, **TINY)), timeout=60)  # room again


def test_a_model_beyond_the_parameter_limit_fails_the_job_as_invalid(runs_dir, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", "100")
    manager = JobManager()
    job = manager.wait(manager.submit(ExperimentSpec("sine", "gru", epochs=1, **TINY)), timeout=60)
    assert job.status == "failed" and job.invalid
    assert "more than 100 weights, the limit" in job.error and "reduce units or layers" in job.error


def test_a_diverged_job_is_done_and_says_so(runs_dir):
    manager = JobManager()
    spec = ExperimentSpec("sine", "gru", epochs=50, optimizer="sgd", learning_rate=10.0, **{**TINY, "batch_size": 8})
    job = manager.wait(manager.submit(spec), timeout=60)
    assert job.done and job.status == "diverged" and job.run.status == "diverged"
