"""Executors: where a ``JobManager``'s job trains. In this process (the default), or as a task on a Ray cluster.

    executor.train(job, store) -> Run     events reach job.add_event in order; job.cancel_flag stops it

``RayExecutor`` (``SEQLAB_RAY_ADDRESS``, or ``--executor ray --ray-address``)
sends each job to the cluster as one remote task that asks for its resources
(a CPU, the GPUs ``spec.devices`` names where the cluster has GPUs, and any
custom ones given). The task runs ``run_experiment`` on its node and writes
the run into the same run store, by path: the store must be a folder every
node sees (one machine, or a shared file system), and so must the signing key
(``SEQLAB_HOME``). Its events come back through a Ray queue, in order, while
it trains; Cancel is a flag on a small actor that the task polls, so the job
stops after its current batch and still writes its run, marked cancelled. A
node lost mid-run fails the job with Ray's reason; the run store's atomic
writes leave no half-written run (``seqlab.runs``), and the task is never
retried.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from seqlab.manifest import HOME_ENV
from seqlab.runs import Run, RunStore

RAY_ADDRESS_ENV = "SEQLAB_RAY_ADDRESS"
EXECUTORS = ("local", "ray")
CANCEL_POLL_SECONDS = 0.2  # how soon a remote job sees Cancel
EVENT_WAIT_SECONDS = 0.1  # how long the submitting side waits for the task between reading events
_CONNECTING = threading.Lock()


class LocalExecutor:
    """Train in this process, on the job manager's worker thread."""

    def train(self, job, store: RunStore) -> Run:
        from seqlab.training.experiment import run_experiment  # imports Keras: the CLI picks its backend first

        return run_experiment(job.spec, job.add_event, store, job.cancel_flag, job.name, job.owner, job.savedmodel)


class RayExecutor:
    """Train each job as a Ray task on the cluster at ``address`` (``"auto"``: the one this machine joined)."""

    def __init__(self, address: str, resources: dict | None = None):
        self.address = address
        self.resources = dict(resources or {})

    def _connect(self):
        import ray

        with _CONNECTING:  # two sessions' first jobs at once: one connects, the other finds it connected
            if not ray.is_initialized():
                ray.init(address=self.address, log_to_driver=False,
                         runtime_env={"env_vars": _worker_environment()})
        return ray

    def train(self, job, store: RunStore) -> Run:
        ray = self._connect()
        from ray.util.queue import Empty, Queue

        events, control = Queue(), ray.remote(num_cpus=0)(CancelFlag).remote()
        gpus = job.spec.devices if ray.cluster_resources().get("GPU") else 0
        task = ray.remote(_train_remote).options(
            num_cpus=1, num_gpus=gpus, resources=self.resources or None, max_retries=0
        )
        ref = task.remote(job.spec, job.name, job.owner, job.savedmodel, str(store.root.resolve()), events, control)
        cancelled = False
        try:
            while True:
                done, _ = ray.wait([ref], timeout=EVENT_WAIT_SECONDS)
                if job.cancel_flag.is_set() and not cancelled:
                    control.set.remote()
                    cancelled = True
                try:
                    for event in events.get_nowait_batch(events.qsize()):
                        job.add_event(event)
                except Empty:
                    pass
                if done:
                    break
            for event in events.get_nowait_batch(events.qsize()):  # what came in while the task ended
                job.add_event(event)
            return store.read(ray.get(ref))
        except ray.exceptions.RayError as err:  # a lost node or worker: the job fails with Ray's reason
            raise RuntimeError(f"the Ray task training this job failed: {_reason(err)}") from None
        finally:
            ray.kill(control)
            events.shutdown(force=True)


class CancelFlag:
    """A flag the submitting side sets and the remote task polls (a Ray actor)."""

    def __init__(self):
        self.is_set_ = False

    def set(self) -> None:
        self.is_set_ = True

    def is_set(self) -> bool:
        return self.is_set_


def _train_remote(spec, name, owner, savedmodel: bool, root: str, events, control) -> str:
    """The Ray task: train ``spec`` on this node into the store at ``root`` (the run named ``name``, owned by
    ``owner``, its SavedModel exported unless ``savedmodel`` is false); the run's id."""
    import ray

    from seqlab.training.experiment import run_experiment

    cancel, finished = threading.Event(), threading.Event()

    def watch() -> None:
        while not finished.wait(CANCEL_POLL_SECONDS):
            if ray.get(control.is_set.remote()):
                cancel.set()
                return

    threading.Thread(target=watch, daemon=True).start()
    node = ray.get_runtime_context().get_node_id()
    events.put({"type": "status", "message": f"training on Ray node {node[:12]}", "node": node})
    try:
        return run_experiment(spec, events.put, RunStore(root), cancel, name, owner, savedmodel).run_id
    finally:
        finished.set()


def _worker_environment() -> dict:
    """What a remote task needs of this process's environment: seqlab on its path, the same signing key and
    Keras backend."""
    source = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH")) if p)
    names = (HOME_ENV, "KERAS_BACKEND", "TF_CPP_MIN_LOG_LEVEL")
    return {"PYTHONPATH": path, **{n: os.environ[n] for n in names if os.environ.get(n)}}


def _reason(err) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def executor_from(name: str | None = None, address: str | None = None):
    """The executor named ``name`` (``local`` or ``ray``); without a name, Ray when ``address`` or
    ``SEQLAB_RAY_ADDRESS`` is set, else local."""
    address = address or os.environ.get(RAY_ADDRESS_ENV)
    name = name or ("ray" if address else "local")
    if name not in EXECUTORS:
        raise ValueError(f"Unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}.")
    if name == "local":
        return LocalExecutor()
    if not address:
        raise ValueError(f"The Ray executor needs the cluster's address: --ray-address HOST:PORT (or 'auto' on a "
                         f"node of it), or set {RAY_ADDRESS_ENV}.")
    return RayExecutor(address)
