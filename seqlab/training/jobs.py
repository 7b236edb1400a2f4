"""Background jobs: training off the caller's thread, with events and Cancel.

One worker thread per ``JobManager`` (one per browser session) runs its jobs
one at a time; further jobs wait in its queue (status ``queued``). Before a job
trains it takes one of the process-wide training slots (``SLOTS``): at most
``max_concurrent_jobs`` jobs of all sessions train at once (``seqlab.limits``),
the others wait their turn, first come first served (status ``waiting``, with
their ``position`` in that queue). A job's events accumulate in a list that any
thread may read from an index (``events_since``), so a UI can redraw without
consuming them. Cancel sets a flag that a waiting job and the training
callback (after every batch) both check. A job trains through the manager's
executor (``seqlab.training.executors``): in this process, or on a Ray cluster.

``submit(spec, reuse=True)`` (a lesson's runs) trains nothing that is already
trained or training: a finished run of the spec's identity in the store
(``seqlab.training.identity``, ``RunStore.find_identical``) comes back as a done
job holding it (``reused``), and a job of that identity that some session of
this process has queued or is training (``TRAININGS``) is returned itself, so
every session follows its one live curve (and a Cancel stops it for all).
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from dataclasses import dataclass, field

# Import the heavy modules here, in the caller's thread: a first import inside
# the worker thread races the app's own imports (measured on this stack).
from seqlab.limits import current_limits, limit_hint
from seqlab.run_name import check_name
from seqlab.run_owner import check_owner
from seqlab.runs import Run, RunStore
from seqlab.training.executors import executor_from
from seqlab.training.identity import spec_identity
from seqlab.training.spec import ExperimentSpec

WORKER_THREAD_NAME = "seqlab-jobs"  # the app's guard (seqlab/app/guard.py) looks for it
DONE = ("completed", "cancelled", "diverged", "failed")
_ids = itertools.count(1)


@dataclass
class Job:
    spec: ExperimentSpec
    name: str | None = None  # the run's name (``seqlab.run_name``)
    owner: str | None = None  # the browser session it is for (``seqlab.run_owner``); None: the local user's
    savedmodel: bool = True  # false: the run's SavedModel is made when asked for (``run_experiment``)
    job_id: int = field(default_factory=lambda: next(_ids))
    status: str = "queued"  # then waiting (for a slot), running, and one of DONE
    position: int | None = None  # 1-based place in the process-wide queue while waiting
    error: str | None = None
    invalid: bool = False  # failed on a bad value (ValueError), not a crash
    run: Run | None = None
    identity: str | None = None  # set when submitted with reuse (``seqlab.training.identity``)
    reused: bool = False  # served from the store: ``run`` was trained before, by an earlier job
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    cancel_flag: threading.Event = field(default_factory=threading.Event)
    _events: list = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def of_run(cls, spec: ExperimentSpec, run: Run) -> "Job":
        """A done job that serves ``run`` (trained earlier) for ``spec``: its events are the run's history."""
        job = cls(spec, run.name, status=run.status, run=run, identity=run.meta.identity, reused=True,
                  finished=time.time())
        job._events = [*run.history.get("batch", []), *run.history.get("epoch", []),
                       {"type": "end", "status": run.status, "run_id": run.run_id, "path": str(run.path)}]
        return job

    def add_event(self, event: dict) -> None:
        with self._lock:
            self._events.append(event)

    def events_since(self, index: int = 0) -> list[dict]:
        with self._lock:
            return list(self._events[index:])

    def cancel(self) -> None:
        """Stop after the current batch (running) or never start (queued or waiting)."""
        self.cancel_flag.set()

    @property
    def done(self) -> bool:
        return self.status in DONE

    def progress(self) -> dict:
        """Fraction done and ETA in seconds, from the latest batch event."""
        events = self.events_since()
        start = next((e for e in events if e["type"] == "start"), None)
        batch = next((e for e in reversed(events) if e["type"] == "batch"), None)
        if start is None or batch is None:
            return {"fraction": 0.0, "eta": None, "epoch": 0, "epochs": start["epochs"] if start else None}
        total = start["epochs"] * start["steps_per_epoch"]
        fraction = min(batch["global_step"] / total, 1.0)
        eta = batch["elapsed"] / fraction * (1 - fraction) if fraction > 0 else None
        return {"fraction": fraction, "eta": eta, "epoch": batch["epoch"], "epochs": start["epochs"]}


class JobSlots:
    """At most ``max_concurrent_jobs`` jobs train at once in this process; the others wait in first-come order.

    The limit is read from ``seqlab.limits`` at every turn, so a server's
    setting applies without a restart.
    """

    POLL_SECONDS = 0.2  # how soon a waiting job notices Cancel

    def __init__(self):
        self._running = 0
        self._waiting: list[Job] = []
        self._changed = threading.Condition()

    def acquire(self, job: Job) -> bool:
        """Wait for a slot (``job.status`` ``waiting``); ``False`` when ``job`` was cancelled meanwhile."""
        with self._changed:
            self._waiting.append(job)
            job.status = "waiting"
            self._renumber()
            try:
                while not job.cancel_flag.is_set():
                    if self._waiting[0] is job and self._running < current_limits().max_concurrent_jobs:
                        self._running += 1
                        return True
                    self._changed.wait(self.POLL_SECONDS)
                return False
            finally:
                self._waiting.remove(job)
                job.position = None
                self._renumber()
                self._changed.notify_all()

    def release(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    @property
    def training(self) -> int:
        """How many jobs hold a slot now: the jobs ahead of the first one waiting."""
        return self._running

    def _renumber(self) -> None:
        for place, waiting in enumerate(self._waiting, start=1):
            waiting.position = place


SLOTS = JobSlots()  # shared by every JobManager of this process: all browser sessions


class Trainings:
    """The reusable jobs of this process not yet done, by (run store, identity): one training per identity."""

    def __init__(self):
        self.lock = threading.Lock()  # held from the lookup to the registration of a new job
        self._jobs: dict[tuple[str, str], Job] = {}

    def get(self, key: tuple[str, str]) -> Job | None:
        job = self._jobs.get(key)
        return job if job is not None and not job.done else None

    def add(self, key: tuple[str, str], job: Job) -> None:
        self._jobs[key] = job

    def remove(self, key: tuple[str, str], job: Job) -> None:
        with self.lock:
            if self._jobs.get(key) is job:
                del self._jobs[key]


TRAININGS = Trainings()  # shared by every JobManager of this process, as SLOTS


class JobManager:
    """Runs submitted specs one after another in a daemon worker thread, each in a shared slot."""

    def __init__(self, store: RunStore | None = None, executor=None):
        self.store = store or RunStore()
        self.executor = executor or executor_from()  # where jobs train: here, or on Ray (seqlab.training.executors)
        self.jobs: list[Job] = []
        self._queue: queue.Queue[Job] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, spec: ExperimentSpec, name: str | None = None, reuse: bool = False,
               owner: str | None = None, savedmodel: bool = True) -> Job:
        """Queue ``spec`` (its run named ``name``, recorded as ``owner``'s once written, its SavedModel left for
        later when ``savedmodel`` is false). With ``reuse``, first ``served``: a run of its identity trained
        before, or the job training it now; else the new job is the one that later submits of it follow."""
        spec.resolved()  # refuse a bad spec or name now, in the caller, with its message
        self.store.check_writable()  # and a store no run could be written to, before it queues
        name, owner = check_name(name), None if owner is None else check_owner(owner)
        if not reuse:
            return self._queue_job(Job(spec, name, owner, savedmodel))
        identity = spec_identity(spec)  # loads the data (once per process): outside the lock
        key = self._key(identity)
        with TRAININGS.lock:  # two sessions submitting one identity at once: the second follows the first
            job = self._serve(key, spec)
            if job is not None:
                return self.follow(job)
            job = self._queue_job(Job(spec, name, owner, savedmodel, identity=identity))
            TRAININGS.add(key, job)
        return job

    def served(self, spec: ExperimentSpec) -> Job | None:
        """A job for ``spec`` that trains nothing: the job of this process queued for or training its identity,
        else a done one holding the newest finished run of it in the store; ``None`` when there is neither.
        It is not yet among this session's jobs (``follow``)."""
        spec.resolved()
        key = self._key(spec_identity(spec))
        with TRAININGS.lock:
            return self._serve(key, spec)

    def follow(self, job: Job) -> Job:
        """Make ``job`` (another session's, or a served one) one of this session's jobs."""
        with self._lock:
            if not any(j is job for j in self.jobs):  # by identity: a dataclass's == compares fields
                self.jobs.append(job)
        return job

    def _key(self, identity: str) -> tuple[str, str]:
        return str(self.store.root.resolve()), identity

    def _serve(self, key: tuple[str, str], spec: ExperimentSpec) -> Job | None:
        """``served``'s answer; the caller holds ``TRAININGS.lock`` (a job that finishes meanwhile is in the
        store before it leaves ``TRAININGS``)."""
        job = TRAININGS.get(key)
        if job is not None:
            return job
        run = self.store.find_identical(key[1])
        return None if run is None else Job.of_run(spec, run)

    def _queue_job(self, job: Job) -> Job:
        with self._lock:
            unfinished = sum(not j.done for j in self.jobs)
            limit = current_limits().max_queued_jobs
            if unfinished >= limit:
                raise ValueError(
                    f"{unfinished} jobs are already running or queued, the limit is {limit} "
                    f"({limit_hint('max_queued_jobs')}); wait for one to finish or cancel one."
                )
            self.jobs.append(job)
            self._queue.put(job)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name=WORKER_THREAD_NAME, daemon=True)
                self._worker.start()
        return job

    def active(self) -> Job | None:
        """The running job, else the waiting one, else the oldest queued one, else ``None``."""
        for status in ("running", "waiting", "queued"):
            for job in self.jobs:
                if job.status == status:
                    return job
        return None

    def queued(self) -> list[Job]:
        return [j for j in self.jobs if j.status == "queued"]

    def _work(self) -> None:
        while True:
            try:
                job = self._queue.get(timeout=1.0)
            except queue.Empty:
                with self._lock:  # submit() holds it too: no job can slip in between
                    if self._queue.empty():
                        self._worker = None  # idle: end; the next submit() starts a new worker
                        return
                continue
            self._run(job)

    def _run(self, job: Job) -> None:
        slot = False
        try:
            slot = not job.cancel_flag.is_set() and SLOTS.acquire(job)
            if not slot:  # cancelled while queued or waiting: never trained
                job.status = "cancelled"
                return
            job.status, job.started = "running", time.time()
            job.run = self.executor.train(job, self.store)  # owned by job.owner as it lands in the store
            job.status = job.run.status
        except Exception as err:  # reported to the UI, never raised in a thread
            job.invalid = isinstance(err, ValueError)
            job.error = str(err) if job.invalid else f"{type(err).__name__}: {err}"
            job.status = "failed"
            job.add_event({"type": "error", "message": job.error})
        finally:
            if slot:
                SLOTS.release()
            job.finished = time.time()
            if job.identity is not None:  # done, its run (if any) in the store: a later submit finds it there
                TRAININGS.remove(self._key(job.identity), job)

    def wait(self, job: Job, timeout: float | None = None) -> Job:
        """Block until ``job`` is done (for the CLI and tests)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not job.done:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {job.job_id} still {job.status} after {timeout} s")
            time.sleep(0.05)
        return job
