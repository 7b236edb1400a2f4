"""JobManager with reuse: one identity trains once however many sessions submit it; a finished run is served."""

import threading

from seqlab.training import ExperimentSpec
from seqlab.training.jobs import JobManager

SPEC = ExperimentSpec("sine", "mlp", data_options={"length": 400, "lookback": 12, "horizon": 4},
                      model_options={"units": 4, "layers": 1}, epochs=4, batch_size=32)


def test_sessions_submitting_one_identity_at_once_share_one_training_and_its_events(runs_dir):
    sessions = [JobManager() for _ in range(3)]
    barrier = threading.Barrier(len(sessions))
    jobs = [None] * len(sessions)

    def submit(i):
        barrier.wait()  # all at once
        jobs[i] = sessions[i].submit(SPEC, "lesson", reuse=True)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    first = jobs[0]
    assert all(job is first for job in jobs) and not first.reused
    assert all(session.jobs == [first] for session in sessions)  # each session follows it as its own
    sessions[1].wait(first, timeout=120)
    assert first.status == "completed"
    assert len(sessions[0].store.list()) == 1  # trained once
    seen = sessions[2].jobs[0].events_since()
    assert sum(e["type"] == "epoch" for e in seen) == 4 and seen[-1]["type"] == "end"


def test_a_finished_identity_is_served_from_the_store_unless_retrained(runs_dir):
    trainer = JobManager()
    trained = trainer.wait(trainer.submit(SPEC, "lesson", reuse=True), timeout=120)
    later = JobManager()  # a reload, a fresh browser, the teacher's link
    assert later.served(SPEC.with_overrides({"seed": 1})) is None  # another seed: nothing to serve
    served = later.served(SPEC)
    assert served.reused and served.done and served.run.run_id == trained.run.run_id
    assert later.jobs == [] and later.follow(served) is served and later.jobs == [served]
    epochs = [e for e in served.events_since() if e["type"] == "epoch"]
    assert [e["val_loss"] for e in epochs] == [e["val_loss"] for e in trained.run.history["epoch"]]  # its curve
    again = later.submit(SPEC, "lesson", reuse=True)
    assert again.reused and again.run.run_id == trained.run.run_id and len(later.store.list()) == 1
    retrained = later.wait(later.submit(SPEC, "lesson"), timeout=120)  # Run again: on purpose
    assert not retrained.reused and retrained.run.run_id != trained.run.run_id
    assert len(later.store.list()) == 2
    assert JobManager().served(SPEC).run.run_id == retrained.run.run_id  # the newest


def test_a_cancelled_training_is_not_followed_nor_served(runs_dir):
    alice = JobManager()
    job = alice.submit(SPEC.with_overrides({"epochs": 200}), reuse=True)
    job.cancel()
    alice.wait(job, timeout=120)
    bob = JobManager()
    assert bob.served(SPEC.with_overrides({"epochs": 200})) is None
    fresh = bob.submit(SPEC.with_overrides({"epochs": 200}), reuse=True)
    assert fresh is not job and not fresh.done
    fresh.cancel()
    bob.wait(fresh, timeout=120)
