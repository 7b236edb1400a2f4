"""The Ray executor on a real local cluster of nodes: jobs spread over them, events in order, Cancel, a lost node."""

import time

import pytest
from ray.cluster_utils import Cluster

from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec
from seqlab.training.executors import RayExecutor
from seqlab.training.jobs import JobManager

TINY = dict(model_options={"units": 4}, data_options={"length": 300, "lookback": 12, "horizon": 4}, batch_size=32)
LONG = ExperimentSpec("sine", "gru", epochs=500, **TINY)  # far longer than any test waits


@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node (one CPU each), and a node with a resource only the doomed job asks for."""
    import ray

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    nodes.add_node(num_cpus=1)
    doomed = nodes.add_node(num_cpus=1, resources={"doomed": 1})
    nodes.wait_for_nodes()
    yield nodes, doomed
    ray.shutdown()
    nodes.shutdown()


def wait_for_batch(job, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not any(e["type"] == "batch" for e in job.events_since()):
        assert time.monotonic() < deadline and not job.done, job.error
        time.sleep(0.1)


def test_jobs_train_on_both_nodes_with_their_events_in_order(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", "2")
    store = RunStore(tmp_path / "runs")
    executor = RayExecutor(cluster[0].address)
    managers = [JobManager(store, executor) for _ in range(2)]  # one job at a time each: two sessions
    jobs = [manager.submit(ExperimentSpec("sine", "gru", epochs=2, seed=seed, **TINY))
            for manager, seed in zip(managers, (1, 2))]
    for manager, job in zip(managers, jobs):
        manager.wait(job, timeout=300)
    assert [job.status for job in jobs] == ["completed", "completed"], [job.error for job in jobs]
    nodes = {next(e["node"] for e in job.events_since() if "node" in e) for job in jobs}
    assert len(nodes) == 2  # one CPU a node: the two jobs trained at once, one on each
    for job in jobs:
        kinds = [e["type"] for e in job.events_since()]
        assert kinds.index("start") > kinds.index("status") and kinds[-1] == "end" and kinds.count("epoch") == 2
        steps = [e["global_step"] for e in job.events_since() if e["type"] == "batch"]
        assert steps == list(range(1, len(steps) + 1))
        assert job.run.history["batch"] == [e for e in job.events_since() if e["type"] == "batch"]
    assert {run.run_id for run in store.list()} == {job.run.run_id for job in jobs}


def test_cancel_stops_the_remote_job_and_keeps_its_run(cluster, tmp_path):
    store = RunStore(tmp_path / "runs")
    manager = JobManager(store, RayExecutor(cluster[0].address))
    job = manager.submit(LONG)
    wait_for_batch(job)
    job.cancel()
    manager.wait(job, timeout=120)
    assert job.status == "cancelled" and job.run.status == "cancelled"
    assert len(job.run.history["epoch"]) < LONG.epochs and store.list()[0].run_id == job.run.run_id


def test_a_lost_node_fails_the_job_and_leaves_no_run(cluster, tmp_path):
    nodes, doomed = cluster
    store = RunStore(tmp_path / "runs")
    manager = JobManager(store, RayExecutor(nodes.address, resources={"doomed": 1}))
    job = manager.submit(LONG)
    wait_for_batch(job)
    nodes.remove_node(doomed)
    manager.wait(job, timeout=120)
    assert job.status == "failed" and "the Ray task training this job failed" in job.error
    assert store.list() == [] and store.broken() == {}
