"""Hostile inputs: uploads, run files, options and store damage through seqlab's real entry points.

    python -m bench.hostile_inputs [--quick] [--only SUBSTRING] [--list] [--runs-from FOLDER]

Everything happens in a temporary folder: a tiny store of real runs (trained
once at the start with ``python -m seqlab train``, a few seconds each, or copied
from ``--runs-from``, a store holding such runs), then copies of it damaged in
many ways, hostile archives, oversized options and broken stores. Each case runs
either as a real CLI process (``python -m seqlab ...``) or as a call of the
library function the dashboard calls (``RunStore.scan``, ``open_upload``,
``import_run``, ...) in one long-lived worker process. A case holds when

- the process ends within the case's time budget and its memory (resident, the
  worker's own included) stays under ``MEMORY_MB``: beyond either it is killed;
- the outcome is the expected one: exit 0 for valid input; exit 2 with exactly one
  line starting ``error:`` and no traceback for refused input (a library call:
  a ``ValueError``); 130 after Ctrl-C;
- the invariants hold afterwards: the store's other runs unchanged and listed,
  no partial file at an export target, no file seqlab did not make removed.

One table per class, a line per case that did not hold, then ``N of M held``;
the exit code is 0 only when every case held. Run as root: some cases mount a
full or read-only file system (tmpfs); as another user those report that they
could not run (and file modes stop a user as the mode cases expect).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import hashlib
import io
import json
import os
import resource
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
MEMORY_MB = 2500  # a normal train, predict or listing here peaks near 1,000 MB
CLI_SECONDS = 60
LONG_RUN_SECONDS = 480  # a valid run that trains on a few thousand windows, its progress shown
LIB_SECONDS = 30
BOMB_BYTES = 1 << 30  # what a compressed member inflates to
DEEP = 20_000  # nesting levels of a deep JSON or TOML file: 40 KB, past Python's recursion limit
PR_CAPBSET_DROP = 24
CAPS_OVER_MODES = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
TWO_HOURS = 7200
CLASSES = ("archives", "run files", "sizes", "store and CLI")

# ---------------------------------------------------------------- running one process


@dataclass
class Outcome:
    """What one case did: the exit code (``None`` when killed), its output, time and peak memory."""

    rc: int | None
    out: str = ""
    err: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0
    killed: str | None = None  # "time" or "memory": past the case's budget
    error: dict | None = None  # a library call's exception: type, message, traceback
    value: object = None  # a library call's result


def rss_mb(pid: int, field_name: str = "VmRSS") -> float:
    """Resident memory of ``pid`` in MB (``VmHWM``: its peak), 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def run_process(argv: list[str], *, cwd: Path, env: dict, seconds: float, memory_mb: float = MEMORY_MB,
                interrupt_after: float | None = None, file_limit: int | None = None,
                heed_modes: bool = False) -> Outcome:
    """Run ``argv``, killing its process group past ``seconds`` or ``memory_mb``; Ctrl-C after ``interrupt_after``.

    ``file_limit``: the largest file it may write (``ulimit -f``, bytes); ``heed_modes``: root without the
    capabilities that let it ignore file modes (so that a mode-000 folder stops it as it stops a user).
    """
    def limits():
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
        if heed_modes:
            libc = ctypes.CDLL(None, use_errno=True)
            for capability in CAPS_OVER_MODES:
                if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0):
                    raise OSError(ctypes.get_errno(), "cannot drop a capability")

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True, preexec_fn=limits)
        with _killed_on_exit(proc.pid):
            status, usage, peak, killed = _watch(proc.pid, started, seconds, memory_mb, interrupt_after)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds_taken = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return Outcome(
            rc=None if killed else proc.returncode,
            out=out.read().decode(errors="replace"), err=err.read().decode(errors="replace"),
            seconds=seconds_taken, peak_mb=max(peak, usage.ru_maxrss / 1024), killed=killed,
        )


def _watch(pid: int, started: float, seconds: float, memory_mb: float, interrupt_after: float | None):
    """Wait for ``pid``, sampling its memory; kill its group past a budget: (status, rusage, peak MB, killed)."""
    peak, killed, interrupted = 0.0, None, False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage, peak, killed
        elapsed = time.monotonic() - started
        peak = max(peak, rss_mb(pid))
        if killed is None and (peak > memory_mb or elapsed > seconds):
            killed = "memory" if peak > memory_mb else "time"
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        elif interrupt_after is not None and not interrupted and elapsed > interrupt_after:
            interrupted = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
        time.sleep(0.02)


@contextlib.contextmanager
def _killed_on_exit(pid: int):
    """Kill the case's process group if the bench itself stops (Ctrl-C) while it runs."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        raise


# ---------------------------------------------------------------- the library worker


class Worker:
    """One long-lived process that calls seqlab's library functions (``LIBRARY``) one case at a time.

    Killed and restarted when a case runs past its time or memory; its peak memory is reset before each case.
    """

    def __init__(self, env: dict, cwd: Path):
        self.env, self.cwd, self.proc = env, cwd, None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.hostile_inputs", "--worker"], cwd=self.cwd, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        warm = self.call("warm_up", [], seconds=180, memory_mb=1e9)
        if warm.error or warm.killed:
            raise RuntimeError(f"the worker did not start: {warm}")

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def call(self, name: str, args: list, seconds: float = LIB_SECONDS, memory_mb: float = MEMORY_MB) -> Outcome:
        if self.proc is None:
            self.start()
        pid = self.proc.pid
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM, the peak, to the memory in use now
        started = time.monotonic()
        self.proc.stdin.write((json.dumps({"call": name, "args": args}) + "\n").encode())
        self.proc.stdin.flush()
        peak, killed, line = 0.0, None, b""
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.02)
            if ready:
                line = self.proc.stdout.readline()
                break
            peak = max(peak, rss_mb(pid))
            elapsed = time.monotonic() - started
            if peak > memory_mb or elapsed > seconds:
                killed = "memory" if peak > memory_mb else "time"
                break
        elapsed = time.monotonic() - started
        peak = max(peak, rss_mb(pid, "VmHWM"))
        if killed or not line:
            self.stop()
            return Outcome(rc=None, seconds=elapsed, peak_mb=peak, killed=killed or "crash")
        reply = json.loads(line)
        if rss_mb(pid) > MEMORY_MB * 0.7:  # what a case left behind would count against the next one
            self.stop()
        return Outcome(rc=0 if "error" not in reply else 1, seconds=elapsed, peak_mb=peak,
                       error=reply.get("error"), value=reply.get("value"))


def serve() -> None:
    """The worker's loop: one JSON request a line on stdin, one JSON reply a line on the original stdout."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever seqlab or Keras prints must not mix with the replies
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {"value": LIBRARY[request["call"]](*request["args"])}
        except BaseException as err:  # noqa: BLE001 - every failure is a finding, RecursionError included
            reply = {"error": {"type": type(err).__name__, "message": str(err)[:600],
                               "value_error": isinstance(err, ValueError),
                               "traceback": traceback.format_exc()[-1500:]}}
        replies.write(json.dumps(reply, default=str) + "\n")
        replies.flush()


# The library entries the CLI and the dashboard call; all arguments are strings, all results plain JSON.


def lib_warm_up() -> str:
    import keras  # noqa: F401 - Keras's start-up outside every case's budget

    import seqlab.registration  # noqa: F401
    return "ready"


def lib_scan(root: str) -> dict:
    """The Models page and ``runs``: readable runs and broken folders with their reasons."""
    from seqlab.runs import RunStore

    runs, broken = RunStore(root).scan()
    return {"runs": [r.run_id for r in runs], "broken": broken}


def lib_delete_listed(root: str) -> dict:
    """Delete every run and broken folder the listing names (the Models page's delete, one by one)."""
    from seqlab.runs import RunStore

    store = RunStore(root)
    runs, broken = store.scan()
    names = [r.run_id for r in runs] + list(broken)
    for name in names:
        store.delete(name)
    runs, broken = store.scan()
    return {"deleted": names, "left": [r.run_id for r in runs] + list(broken)}


def lib_open_run(root: str, run_id: str) -> dict:
    """A run opened for use (Generate, Translate, Forecast pages): its model, predictions and tokenisers."""
    from seqlab.runs import RunStore
    from seqlab.tasks import get_task

    run = RunStore(root).read(run_id)
    run.load_model()
    run.predictions()
    assets = get_task(run.meta.task).load_assets(run.path)
    if run.meta.task == "language":
        from seqlab.tasks.language.generate import generate_text, run_tokenizer

        tokenizer = run_tokenizer(run)
        generate_text(run, "the", 3, temperature=0.0, tokenizer=tokenizer)
    return {"opened": run_id, "assets": sorted(assets)}


def lib_open_upload(name: str, path: str, folder: str, trust: str = "") -> dict:
    """The Models page's upload of a ``.keras`` file, a run zip or a zipped SavedModel."""
    from seqlab.uploaded_model import open_upload

    model = open_upload(name, path, Path(folder), trust=bool(trust))
    return {"kind": model.kind, "parameters": model.parameters}


def lib_import_run(root: str, name: str, path: str) -> dict:
    """The Models page's import of a run zip into the store."""
    from seqlab.run_import import import_run
    from seqlab.runs import RunStore

    return {"run_id": import_run(RunStore(root), name, path).run_id}


def lib_current_limits() -> dict:
    """The server's limits, read from ``SEQLAB_CONFIG`` (set by the case) at every call."""
    from seqlab.limits import current_limits

    return dataclasses.asdict(current_limits())


def lib_with_config(config: str, call: str, *args) -> object:
    """``call`` with ``SEQLAB_CONFIG`` naming ``config`` for its duration."""
    os.environ["SEQLAB_CONFIG"] = config
    try:
        return LIBRARY[call](*args)
    finally:
        del os.environ["SEQLAB_CONFIG"]


def lib_small_keras(path: str, units: str) -> str:
    """A real ``.keras`` file (Dense on 10 inputs) for the hostile configs to start from."""
    import keras

    model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(int(units))])
    model.save(path)
    return path


LIBRARY = {
    "warm_up": lib_warm_up, "scan": lib_scan, "delete_listed": lib_delete_listed, "open_run": lib_open_run,
    "open_upload": lib_open_upload, "import_run": lib_import_run, "current_limits": lib_current_limits,
    "with_config": lib_with_config, "small_keras": lib_small_keras,
}

# ---------------------------------------------------------------- cases


@dataclass
class Cli:
    """A ``python -m seqlab`` command (``{store}``, ``{home}`` and ``{tmp}`` in arguments are filled in)."""

    args: list[str]
    env: dict = field(default_factory=dict)
    interrupt_after: float | None = None
    file_limit: int | None = None
    heed_modes: bool = False  # as root: let file modes stop it


@dataclass
class Lib:
    """A library call in the worker (``LIBRARY``)."""

    call: str
    args: list[str]


@dataclass
class Case:
    """One hostile input: ``build(bench, folder)`` makes its files in its own folder and says what to run.

    ``expect``: ``ok`` (exit 0, no exception), ``refused`` (exit 2 with one ``error:`` line; a ``ValueError``),
    ``either`` (one or the other: a harmless oddity may be accepted), ``interrupted`` (exit 130).
    ``check(folder, outcome)``: an invariant afterwards, a problem or ``None``.
    """

    klass: str
    name: str
    build: Callable[["Bench", Path], Cli | Lib]
    expect: str
    check: Callable[[Path, Outcome], str | None] | None = None
    seconds: float | None = None
    quick: bool = False


def judge(case: Case, what: Cli | Lib, outcome: Outcome) -> str | None:
    """Why the case did not hold, or ``None``."""
    if outcome.killed:
        budget = f"{case.seconds or (CLI_SECONDS if isinstance(what, Cli) else LIB_SECONDS):.0f} s"
        return {"time": f"ran past {budget}", "memory": f"passed {MEMORY_MB} MB",
                "crash": "the worker died"}.get(outcome.killed, outcome.killed)
    if isinstance(what, Lib):
        error = outcome.error
        if case.expect == "ok" and error:
            return f"{error['type']}: {error['message'][:160]}"
        if case.expect == "refused" and not error:
            return f"accepted: {json.dumps(outcome.value, default=str)[:160]}"
        if case.expect in ("refused", "either") and error:
            if not error["value_error"]:
                last = error["traceback"].strip().splitlines()[-1][:160]
                return f"{error['type']} instead of a ValueError: {last}"
        return None
    if "Traceback" in outcome.err:
        return "traceback: " + outcome.err.strip().splitlines()[-1][:160]
    errors = [line for line in outcome.err.splitlines() if line.startswith("error:")]
    if case.expect == "ok" and outcome.rc != 0:
        return f"exit {outcome.rc}: {(errors or outcome.err.strip().splitlines() or [''])[-1][:160]}"
    if case.expect == "either" and outcome.rc not in (0, 2):
        return f"exit {outcome.rc}, neither 0 nor 2"
    if case.expect == "refused" or (case.expect == "either" and outcome.rc == 2):
        if outcome.rc != 2:
            return f"exit {outcome.rc}, not 2" + (f": {errors[-1][:140]}" if errors else "")
        if len(errors) != 1:
            return f"{len(errors)} lines starting 'error:' on stderr, not 1"
    if case.expect == "interrupted" and outcome.rc != 130:
        return f"exit {outcome.rc} after Ctrl-C, not 130"
    return None


class Bench:
    """The temporary folder, the base runs (trained once), the worker, and the run of every case."""

    def __init__(self, tmp: Path, runs_from: Path | None):
        self.tmp, self.runs_from = tmp, runs_from
        self.home = tmp / "home"
        self.home.mkdir()
        self.env = {**os.environ, "SEQLAB_HOME": str(self.home), "PYTHONPATH": str(REPO),
                    "SEQLAB_RUNS_DIR": str(tmp / "no-default-store"), "TF_CPP_MIN_LOG_LEVEL": "3"}
        self.env.pop("SEQLAB_CONFIG", None)
        self.base: dict[str, Path] = {}
        self.worker = Worker(self.env, REPO)
        self.cache: dict[str, Path] = {}

    # base runs ------------------------------------------------------------

    def base_run(self, kind: str) -> Path:
        """The folder of a healthy run of ``kind`` (trained on first use, or copied from ``--runs-from``)."""
        if kind not in self.base:
            self.base[kind] = self._found(kind) or self._train(kind)
        return self.base[kind]

    def _found(self, kind: str) -> Path | None:
        if self.runs_from is None:
            return None
        for folder in sorted(self.runs_from.iterdir()):
            meta = folder / "meta.json"
            if meta.is_file() and json.loads(meta.read_text()).get("task") == kind:
                target = self.tmp / "base" / folder.name
                shutil.copytree(folder, target)
                _resign(self, target)
                return target
        return None

    def _train(self, kind: str) -> Path:
        data = self.tmp / "data"
        data.mkdir(exist_ok=True)
        words = "the cat sat on a mat and a dog ran far away from home today".split()
        (data / "tiny.txt").write_text("\n".join(" ".join(words[(i + j) % 14] for j in range(12))
                                                 for i in range(300)))
        (data / "tiny.csv").write_text("text,label\n" + "".join(
            f"{' '.join(words[(i + j) % 14] for j in range(6))} {'good' if i % 2 else 'bad'},{i % 2}\n"
            for i in range(200)))
        args = {
            "forecast": ["--dataset", "sine", "--model", "arx"],
            "language": ["--dataset", f"text:{data / 'tiny.txt'}", "--model", "markov"],
            "classify": ["--dataset", f"textcsv:{data / 'tiny.csv'}", "--model", "mean_embedding",
                         "--set", "text=text", "--set", "label=label", "--epochs", "1"],
            "translate": ["--dataset", "toy_pairs", "--model", "seq2seq", "--set", "samples=200",
                          "--set", "units=8", "--set", "embedding_dim=4", "--epochs", "1"],
        }[kind]
        store = self.tmp / "base"
        print(f"training the {kind} run ...", file=sys.stderr, flush=True)
        done = run_process([sys.executable, "-m", "seqlab", "train", "--runs-dir", str(store), "--json", *args],
                           cwd=self.tmp, env=self.env, seconds=300, memory_mb=1e9)
        if done.rc != 0:
            raise RuntimeError(f"training the {kind} run failed: {done.err[-2000:]}")
        return Path(json.loads(done.out.strip().splitlines()[-1])["path"])

    def store_with(self, folder: Path, *kinds: str, name: str | None = None) -> tuple[Path, list[str]]:
        """A new store ``folder/store`` holding copies of the base runs of ``kinds``; their ids."""
        store = folder / "store"
        store.mkdir(parents=True, exist_ok=True)
        ids = []
        for i, kind in enumerate(kinds):
            source = self.base_run(kind)
            run_id = name if (name and i == 0) else source.name
            shutil.copytree(source, store / run_id)
            ids.append(run_id)
        return store, ids

    # running --------------------------------------------------------------

    def run(self, case: Case, index: int) -> tuple[str | None, Outcome | None]:
        folder = self.tmp / "cases" / f"{index:04d}"
        folder.mkdir(parents=True)
        try:
            what = case.build(self, folder)
        except Unavailable as err:
            return f"could not run here: {err}", None
        try:
            if isinstance(what, Lib):
                outcome = self.worker.call(what.call, what.args, seconds=case.seconds or LIB_SECONDS)
            else:
                outcome = run_process([sys.executable, "-m", "seqlab", *what.args], cwd=folder,
                                      env={**self.env, **what.env}, seconds=case.seconds or CLI_SECONDS,
                                      interrupt_after=what.interrupt_after, file_limit=what.file_limit,
                                      heed_modes=what.heed_modes)
            problem = judge(case, what, outcome)
            if problem is None and case.check is not None:
                problem = case.check(folder, outcome)
            return problem, outcome
        finally:
            _unmount_all(folder)


class Unavailable(Exception):
    """This machine cannot set the case up (e.g. no permission to mount)."""


# ---------------------------------------------------------------- helpers for building cases


def _resign(bench: Bench, folder: Path) -> None:
    """Sign a copied run with this bench's key, as if trained here (its files are unchanged)."""
    code = "import sys; from pathlib import Path; from seqlab.manifest import write_manifest; " \
           "write_manifest(Path(sys.argv[1]), None)"
    subprocess.run([sys.executable, "-c", code, str(folder)], env=bench.env, cwd=REPO, check=True)


def fingerprint(folder: Path) -> dict:
    """Every file under ``folder``: its SHA-256 (to see that a case left a run alone)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def deep_json(kind: str) -> bytes:
    if kind == "deep list":
        return b"[" * DEEP + b"]" * DEEP
    return b'{"a":' * DEEP + b"1" + b"}" * DEEP


def big_json(megabytes: int = 64) -> bytes:
    return b"[" + b"0," * (megabytes * (1 << 19)) + b"0]"


def bomb_member(archive: zipfile.ZipFile, name: str, size: int = BOMB_BYTES, unit: bytes = b"0,",
                head: bytes = b"[", tail: bytes = b"0]") -> None:
    """Write ``name`` as deflated JSON that inflates to ``size`` bytes (a list of zeros) without holding it."""
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    chunk = unit * ((1 << 20) // len(unit))
    with archive.open(info, "w", force_zip64=True) as member:
        member.write(head)
        for _ in range(size // len(chunk)):
            member.write(chunk)
        member.write(tail)


def keras_members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_zip(path: Path, members: dict[str, bytes | Callable], compress: int = zipfile.ZIP_DEFLATED) -> Path:
    """A zip of ``members`` (name -> bytes, or a function that writes the member into the archive)."""
    with zipfile.ZipFile(path, "w", compress) as archive:
        for name, data in members.items():
            if callable(data):
                data(archive, name)
            else:
                archive.writestr(name, data)
    return path


def run_zip_members(run: Path, prefix: str | None = None) -> dict[str, bytes]:
    """A run folder as the Models page's Download zip lays it out (``RUN_ID/file``)."""
    prefix = prefix or run.name
    return {f"{prefix}/{p.relative_to(run)}": p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def mount_tmpfs(folder: Path, size: str, read_only: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    if done.returncode:
        raise Unavailable(f"cannot mount a tmpfs ({done.stderr.decode().strip() or 'not root'})")
    return folder


def _unmount_all(folder: Path) -> None:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
              if line.split()[1].startswith(str(folder) + "/")]
    for point in sorted(mounts, key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def age(path: Path, seconds: float = TWO_HOURS) -> None:
    then = time.time() - seconds
    for p in [*path.rglob("*"), path] if path.is_dir() else [path]:
        os.utime(p, (then, then), follow_symlinks=False)


def foreign_files(store: Path) -> list[Path]:
    """Folders and files in a store that seqlab did not make, two hours old, with seqlab-like names."""
    made = []
    for name in (".tmp-build-cache", ".deleting-notes", ".tmp-20240101-000000-sine-arx-ab12-x1y2z3"):
        folder = store / name
        folder.mkdir(parents=True)
        (folder / "someone-elses-work.txt").write_text("keep me")
        age(folder)
        made.append(folder / "someone-elses-work.txt")
    (store / ".tmp-a-file").write_text("keep me")
    age(store / ".tmp-a-file")
    made.append(store / ".tmp-a-file")
    return made


def all_there(paths: list[Path]) -> str | None:
    gone = [f"{p.parent.name}/{p.name}" for p in paths if not p.exists()]
    return f"removed files seqlab did not make: {', '.join(gone)}" if gone else None


# ---------------------------------------------------------------- the cases, class by class

RUN_JSON = ("spec.json", "meta.json", "metrics.json", "history.json", "manifest.json", "tokenizer.json")
RUN_FILES = ("spec.json", "meta.json", "metrics.json", "history.json", "manifest.json", "tokenizer.json",
             "model.keras", "predictions.npz", "savedmodel/saved_model.pb",
             "savedmodel/variables/variables.data-00000-of-00001")
JSON_DAMAGE = {
    "deep list": lambda: deep_json("deep list"),
    "deep object": lambda: deep_json("deep object"),
    "truncated": None,  # the file's first half
    "binary": lambda: bytes(range(256)) * 4,
    "a number": lambda: b"12345",
}


def damaged_store(bench: Bench, folder: Path, file: str, damage: str) -> tuple[Path, str, str, dict]:
    """A store of a language run (``victim``) with ``file`` damaged and a healthy forecast run beside it."""
    store, (victim, healthy) = bench.store_with(folder, "language", "forecast")
    path = store / victim / file
    if damage == "fifo":
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    elif damage == "missing":
        path.unlink()
    elif damage == "same size":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "big":
        path.write_bytes(big_json())
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: max(1, path.stat().st_size // 2)])
    else:
        path.write_bytes(JSON_DAMAGE[damage]())
    return store, victim, healthy, fingerprint(store / healthy)


def listed_broken(file: str, damage: str) -> bool:
    """Whether the listing must show the damaged run as broken: the listing checks sizes, not hashes (those
    when a run is opened), and a run without a manifest is one of an older seqlab (listed, never trusted)."""
    return damage != "same size" and (file, damage) != ("manifest.json", "missing")


def healthy_left(store: Path, healthy: str, before: dict) -> str | None:
    if not (store / healthy).is_dir() or fingerprint(store / healthy) != before:
        return f"the healthy run {healthy} changed or went"
    return None


def run_file_cases() -> list[Case]:
    cases = []
    klass = "run files"

    def store_case(file, damage, call, expect, quick=False, seconds=None):
        def build(bench, folder):
            store, victim, healthy, before = damaged_store(bench, folder, file, damage)
            folder.joinpath("ids.json").write_text(json.dumps([victim, healthy, before]))
            if call == "scan":
                return Lib("scan", [str(store)])
            if call == "delete listed":
                return Lib("delete_listed", [str(store)])
            if call == "open":
                return Lib("open_run", [str(store), victim])
            if call == "cli runs":
                return Cli(["runs", "--runs-dir", str(store)])
            if call == "cli generate":
                return Cli(["generate", victim, "--runs-dir", str(store), "--prompt", "the", "--tokens", "3"])
            if call == "cli delete":
                return Cli(["delete", victim, "--runs-dir", str(store), "--yes"])
            raise AssertionError(call)

        def check(folder, outcome):
            victim, healthy, before = json.loads(folder.joinpath("ids.json").read_text())
            store = folder / "store"
            if call == "scan":
                if healthy not in outcome.value["runs"]:
                    return f"the healthy run is not listed: {json.dumps(outcome.value)[:160]}"
                if listed_broken(file, damage) and victim not in outcome.value["broken"]:
                    return "the damaged run is not listed as broken"
            if call == "cli runs":
                if healthy not in outcome.out:
                    return "the healthy run is not listed"
                if listed_broken(file, damage) and f"broken: {victim}" not in outcome.err:
                    return "the damaged run is not listed as broken"
            if call in ("delete listed", "cli delete"):
                gone = [victim, healthy] if call == "delete listed" else [victim]
                left = [n for n in gone if (store / n).exists()]
                if left:
                    return f"not deleted: {', '.join(left)}"
                return None
            return healthy_left(store, healthy, before)

        cases.append(Case(klass, f"{file} {damage}: {call}", build, expect, check, seconds, quick))

    for file in RUN_JSON:
        for damage in JSON_DAMAGE:
            quick = damage == "deep list" and file in ("meta.json", "tokenizer.json", "manifest.json")
            store_case(file, damage, "scan", "ok", quick)
            store_case(file, damage, "delete listed", "ok", quick and file == "tokenizer.json")
            store_case(file, damage, "open", "refused", quick and file == "tokenizer.json")
        store_case(file, "big", "scan", "ok")
    for file in ("meta.json", "manifest.json", "tokenizer.json", "history.json"):
        store_case(file, "deep list", "cli runs", "ok", quick=file == "manifest.json")
        store_case(file, "deep list", "cli delete", "ok", quick=file == "meta.json")
    for file in ("tokenizer.json", "meta.json", "spec.json"):
        store_case(file, "deep list", "cli generate", "refused", quick=file == "tokenizer.json")
    for file in RUN_FILES:
        quick = file in ("manifest.json", "predictions.npz")
        store_case(file, "fifo", "scan", "ok", quick, seconds=20)
        store_case(file, "fifo", "delete listed", "ok", seconds=20)
        store_case(file, "missing", "scan", "ok")
        store_case(file, "missing", "delete listed", "ok")
    for file in ("manifest.json", "predictions.npz"):
        store_case(file, "fifo", "cli runs", "ok", quick=file == "predictions.npz", seconds=20)
    for file in ("model.keras", "savedmodel/saved_model.pb", "savedmodel/variables/variables.data-00000-of-00001",
                 "predictions.npz", "tokenizer.json", "spec.json"):
        store_case(file, "same size", "scan", "ok")
        store_case(file, "same size", "open", "refused", quick=file == "model.keras")
    for file in ("model.keras", "savedmodel/saved_model.pb"):
        store_case(file, "same size", "cli generate", "refused", quick=file == "model.keras")
    cases += name_json_cases(klass)
    cases += config_cases(klass)
    return cases


def name_json_cases(klass: str) -> list[Case]:
    """``name.json`` (unsigned, the user's label) damaged: the run still lists, deletes, or is broken."""
    cases = []
    for damage in ("deep list", "deep object", "binary"):
        def build(bench, folder, damage=damage):
            store, (victim, healthy) = bench.store_with(folder, "language", "forecast")
            (store / victim / "name.json").write_bytes(JSON_DAMAGE[damage]())
            return Lib("delete_listed", [str(store)])

        def check(folder, outcome):
            left = [p.name for p in (folder / "store").iterdir() if not p.name.startswith(".")]
            return f"not deleted: {', '.join(left)}" if left else None

        cases.append(Case(klass, f"name.json {damage}: delete listed", build, "ok", check))
    return cases


def config_cases(klass: str) -> list[Case]:
    """The server's ``SEQLAB_CONFIG`` TOML file: deep, big, a FIFO, absurd numbers."""
    cases = []
    contents = {
        "deep array": lambda: b"[limits]\nmax_epochs = " + b"[" * DEEP + b"]" * DEEP + b"\n",
        "deep table": lambda: b"[limits]\nx = " + b"{a = " * DEEP + b"1" + b"}" * DEEP + b"\n",
        "big": lambda: b"[limits]\n" + b"# padding\n" * (6 << 20) + b"max_epochs = 10\n",
        "huge number": lambda: b"[limits]\nmax_epochs = " + b"9" * 100_000 + b"\n",
        "fifo": None,
    }
    for kind, content in contents.items():
        def make(folder, kind=kind, content=content):
            path = folder / "seqlab.toml"
            if content is None:
                os.mkfifo(path)
            else:
                path.write_bytes(content())
            return path

        def build_lib(bench, folder, make=make):
            return Lib("with_config", [str(make(folder)), "current_limits"])

        def build_cli(bench, folder, make=make):
            return Cli(["train", "--runs-dir", str(folder / "store"), "--dataset", "sine", "--model", "arx"],
                       env={"SEQLAB_CONFIG": str(make(folder))})

        seconds = 20 if kind == "fifo" else None
        expect = "either" if kind == "big" else "refused"  # a big but valid file may load or be refused
        cases.append(Case(klass, f"SEQLAB_CONFIG {kind}: limits", build_lib, expect, None, seconds,
                          quick=kind == "deep array"))
        if expect == "refused":
            cases.append(Case(klass, f"SEQLAB_CONFIG {kind}: cli train", build_cli, "refused", None, seconds))
    return cases


# archives ----------------------------------------------------------------

LAYER = {"module": "keras.layers", "registered_name": None}


def hostile_configs(config: dict) -> dict[str, dict]:
    """The real Sequential config of a Dense model, turned hostile one way each."""
    def with_layer(entry: dict) -> dict:
        out = json.loads(json.dumps(config))
        out["config"]["layers"][-1] = entry
        return out

    dense = config["config"]["layers"][-1]
    huge = {**dense, "config": {**dense["config"], "units": 2_000_000_000}}
    return {
        "Dense of 2e9 units": with_layer(huge),
        "Embedding 1e9 x 1000": with_layer({**LAYER, "class_name": "Embedding", "config": {
            "name": "e", "input_dim": 1_000_000_000, "output_dim": 1000}}),
        "LSTM of 1e6 units": with_layer({**LAYER, "class_name": "LSTM", "config": {"name": "l", "units": 1_000_000}}),
        "TorchModuleWrapper": with_layer({**LAYER, "class_name": "TorchModuleWrapper", "config": {
            "name": "t", "module": "gASVAAAAAAAAAACMAm9zlIwGc3lzdGVtlJOUjAVlY2hvIJSFlFKULg=="}}),
        "TorchModuleWrapper at the top": {**LAYER, "class_name": "TorchModuleWrapper", "config": {
            "name": "t", "module": "gASV"}},
        "Lambda": with_layer({**LAYER, "class_name": "Lambda", "config": {"name": "x", "function": {
            "class_name": "__lambda__", "config": {"code": "4wEAAAAAAAAAAAAAAAEAAAADAAAAQwAAAHMEAAAAfABTAKkBTqkA",
                                                  "defaults": None, "closure": None}}}}),
        "os.system": with_layer({"module": "os", "class_name": "system", "config": {"command": "true"},
                                 "registered_name": None}),
        "builtins.eval": with_layer({"module": "builtins", "class_name": "eval", "config": {},
                                     "registered_name": None}),
        "a registered custom class": with_layer({"module": "__main__", "class_name": "Evil", "config": {},
                                                 "registered_name": "Custom>Evil"}),
        "keras.src internals": with_layer({"module": "keras.src.saving.serialization_lib",
                                           "class_name": "deserialize_keras_object", "config": {},
                                           "registered_name": None}),
    }


def keras_file(bench: Bench, folder: Path, name: str) -> Path:
    """The hostile ``.keras`` file ``name`` (made once, then reused)."""
    key = f"keras {name}"
    if key in bench.cache:
        return bench.cache[key]
    (bench.tmp / "archives").mkdir(exist_ok=True)
    template = bench.tmp / "archives" / "small.keras"
    if not template.exists():
        made = bench.worker.call("small_keras", [str(template), "4"], seconds=120, memory_mb=1e9)
        if made.error or made.killed:
            raise RuntimeError(f"could not make a .keras file: {made}")
    members = keras_members(template)
    config = json.loads(members["config.json"])
    path = bench.tmp / "archives" / f"{len(bench.cache):03d}.keras"
    if name == "small (valid)":
        shutil.copyfile(template, path)
    elif name in hostile_configs(config):
        write_zip(path, {**members, "config.json": json.dumps(hostile_configs(config)[name]).encode()})
    elif name == "bomb config.json":
        write_zip(path, {**members, "config.json": bomb_member})
    elif name == "bomb metadata.json":
        write_zip(path, {**members, "metadata.json": bomb_member})
    elif name == "bomb weights":
        write_zip(path, {**members, "model.weights.h5": lambda a, n: bomb_member(a, n, unit=b"\0" * 64,
                                                                                   head=b"", tail=b"")})
    elif name in ("deep list config.json", "deep object config.json"):
        write_zip(path, {**members, "config.json": deep_json(name.removesuffix(" config.json"))})
    elif name == "not a zip":
        path.write_bytes(b"PK\x03\x04" + b"\xff" * 1000)
    elif name == "truncated":
        path.write_bytes(template.read_bytes()[:300])
    else:
        path.write_bytes(zip_attack(name, members, "config.json"))
    bench.cache[key] = path
    return path


ZIP_ATTACKS = ("a then a/b", "a/b then a", "../ path", "absolute path", "symlink entry", "5,000 entries",
               "encrypted flag", "duplicate member", "NUL in a name", "declared size lies")
# An unpacked archive (run zip, zipped SavedModel) must refuse these; Keras reads a .keras without unpacking it.
UNPACK_REFUSES = ("../ path", "absolute path", "symlink entry", "5,000 entries", "encrypted flag")


def zip_attack(name: str, members: dict[str, bytes], target: str) -> bytes:
    """``members`` zipped with one structural attack ``name`` (``target``: the member a duplicate or a lie is of)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        extra = []
        if name == "a then a/b":
            extra = [("a", b"file"), ("a/b", b"below a file")]
        elif name == "a/b then a":
            extra = [("a/b", b"below"), ("a", b"file")]
        elif name == "../ path":
            extra = [("../../escaped.txt", b"out")]
        elif name == "absolute path":
            extra = [("/tmp/seqlab-hostile-absolute.txt", b"out")]
        elif name == "5,000 entries":
            extra = [(f"f/{i}", b"") for i in range(5000)]
        elif name == "duplicate member":
            extra = [(n, b"[]") for n in members if n.endswith(target)]
        elif name == "NUL in a name":
            extra = [("xAy", b"")]  # the A becomes a NUL below: zipfile cuts a name at a NUL
        for member, data in members.items():
            archive.writestr(member, data)
        for member, data in extra:
            info = zipfile.ZipInfo(member)
            archive.writestr(info, data)
        if name == "symlink entry":
            info = zipfile.ZipInfo("link")
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
        if name == "encrypted flag":
            archive.writestr("secret", b"x" * 100)
    data = buffer.getvalue()
    if name == "declared size lies":  # the headers say 1 byte for the member; it inflates to more
        data = _patch_headers(data, [n for n in members if n.endswith(target)][0], size=1)
    elif name == "encrypted flag":  # zipfile clears the flag on writing: set it in the headers
        data = _patch_headers(data, "secret", encrypted=True)
    elif name == "NUL in a name":
        data = data.replace(b"xAy", b"x\0y")
    return data


def _patch_headers(data: bytes, member: str, size: int | None = None, encrypted: bool = False) -> bytes:
    """``data`` with the local and central headers of ``member`` claiming ``size`` bytes, or encryption."""
    out = bytearray(data)
    marker = member.encode()
    # offsets in the central and the local header: flags, uncompressed size, name length, name
    for signature, flags_at, size_at, length_at, name_at in ((b"PK\x01\x02", 8, 24, 28, 46),
                                                             (b"PK\x03\x04", 6, 22, 26, 30)):
        start = 0
        while (start := out.find(signature, start)) != -1:
            length = struct.unpack_from("<H", out, start + length_at)[0]
            if length == len(marker) and out[start + name_at:start + name_at + length] == marker:
                if size is not None:
                    struct.pack_into("<I", out, start + size_at, size)
                if encrypted:
                    flags = struct.unpack_from("<H", out, start + flags_at)[0]
                    struct.pack_into("<H", out, start + flags_at, flags | 1)
            start += 4
    return bytes(out)


def run_zip(bench: Bench, name: str) -> Path:
    """A run zip of the language run with one member made hostile (made once, then reused)."""
    key = f"run zip {name}"
    if key in bench.cache:
        return bench.cache[key]
    run = bench.base_run("language")
    members = run_zip_members(run)
    prefix = run.name
    path = bench.tmp / "archives" / f"{len(bench.cache):03d}.zip"
    (bench.tmp / "archives").mkdir(exist_ok=True)
    if name == "valid":
        write_zip(path, members)
    elif name.startswith("model.keras: "):
        members[f"{prefix}/model.keras"] = keras_file(bench, path.parent, name.removeprefix("model.keras: ")) \
            .read_bytes()
        write_zip(path, members)
    elif name.startswith("bomb "):
        write_zip(path, {**members, f"{prefix}/{name.removeprefix('bomb ')}": bomb_member})
    elif name.startswith("deep "):
        file = name.split(" ")[-1]
        members[f"{prefix}/{file}"] = deep_json("deep list")
        write_zip(path, members)
    elif name == "zipped SavedModel, bomb saved_model.pb":
        saved = {k.split("/", 1)[1]: v for k, v in members.items() if k.startswith(f"{prefix}/savedmodel/")}
        write_zip(path, {**saved, "savedmodel/saved_model.pb": lambda a, n: bomb_member(
            a, n, unit=b"\0" * 64, head=b"", tail=b"")})
    else:
        path.write_bytes(zip_attack(name, members, "meta.json"))
    bench.cache[key] = path
    return path


def archive_cases() -> list[Case]:
    klass = "archives"
    cases = []
    keras_names = ["bomb config.json", "bomb metadata.json", "bomb weights", "deep list config.json",
                   "deep object config.json", "Dense of 2e9 units", "Embedding 1e9 x 1000", "LSTM of 1e6 units",
                   "TorchModuleWrapper", "TorchModuleWrapper at the top", "Lambda", "os.system", "builtins.eval",
                   "a registered custom class", "keras.src internals", "not a zip", "truncated", *ZIP_ATTACKS]
    quick = {"bomb config.json", "Dense of 2e9 units", "TorchModuleWrapper", "a then a/b"}

    def upload(kind, name, expect, trust=False):
        def build(bench, folder):
            path = keras_file(bench, folder, name) if kind == "keras" else run_zip(bench, name)
            upload_name = "model.keras" if kind == "keras" else "run.zip"
            return Lib("open_upload", [upload_name, str(path), str(folder / "upload"), "yes" if trust else ""])

        def check(folder, outcome):
            escaped = [p for p in (folder / "escaped.txt", folder.parent / "escaped.txt",
                                   Path("/tmp/seqlab-hostile-absolute.txt")) if p.exists()]
            return f"wrote outside the upload folder: {escaped}" if escaped else None

        return Case(klass, f"upload {kind} {name}", build, expect, check,
                    quick=name in quick or (kind == "run zip" and name == "valid"))

    def imported(name, expect):
        def build(bench, folder):
            store, (healthy,) = bench.store_with(folder, "forecast")
            folder.joinpath("before.json").write_text(json.dumps([healthy, fingerprint(store / healthy)]))
            return Lib("import_run", [str(store), "run.zip", str(run_zip(bench, name))])

        def check(folder, outcome):
            healthy, before = json.loads(folder.joinpath("before.json").read_text())
            store = folder / "store"
            problem = healthy_left(store, healthy, before)
            if problem or not outcome.error:
                return problem
            extra = [p.name for p in store.iterdir() if p.name != healthy and (p.is_dir() or p.stat().st_size)]
            return f"a refused import left in the store: {', '.join(extra)}" if extra else None

        return Case(klass, f"import run zip {name}", build, expect, check,
                    quick=name in ("deep tokenizer.json", "valid", "bomb meta.json"))

    cases.append(upload("keras", "small (valid)", "ok"))
    for name in keras_names:
        cases.append(upload("keras", name, "either" if name in ZIP_ATTACKS else "refused"))
    run_zip_names = ["bomb meta.json", "bomb spec.json", "bomb tokenizer.json", "bomb model.keras",
                     "deep meta.json", "deep tokenizer.json", "deep spec.json", "deep metrics.json",
                     "deep history.json", "deep manifest.json",
                     *[f"model.keras: {n}" for n in ("bomb config.json", "Dense of 2e9 units",
                                                     "TorchModuleWrapper", "Lambda", "deep list config.json")],
                     *ZIP_ATTACKS]
    cases.append(upload("run zip", "valid", "ok"))
    cases.append(imported("valid", "ok"))
    for name in run_zip_names:
        expect = "either" if name in ZIP_ATTACKS and name not in UNPACK_REFUSES else "refused"
        # Predicting from an uploaded run zip reads its meta.json, model and tokenisers only; an import
        # copies every file but the manifest, which it writes anew.
        ignored = name.startswith("deep ") and name.split()[-1] in ("spec.json", "metrics.json", "history.json",
                                                                    "manifest.json")
        cases.append(upload("run zip", name, "either" if ignored else expect))
        cases.append(imported(name, "either" if name == "deep manifest.json" else expect))
    cases.append(upload("run zip", "zipped SavedModel, bomb saved_model.pb", "refused", trust=True))
    return cases


# sizes -------------------------------------------------------------------


def train(dataset: str, model: str, *sets: str, epochs: int | None = 1) -> Callable:
    def build(bench, folder):
        args = ["train", "--runs-dir", str(folder / "store"), "--dataset", dataset, "--model", model]
        if epochs is not None:
            args += ["--epochs", str(epochs)]
        for s in sets:
            args += ["--set", s]
        return Cli(args)
    return build


def big_text(folder: Path, megabytes: int = 19) -> Path:
    path = folder / "big.txt"
    line = b"the quick brown fox jumps over the lazy dog, then naps; " * 2 + b"\n"
    with path.open("wb") as f:
        for _ in range(megabytes * (1 << 20) // len(line)):
            f.write(line)
    return path


def on_run(kind: str, command: str, *args: str, interrupt_after: float | None = None) -> Callable:
    def build(bench, folder):
        store, (run_id,) = bench.store_with(folder, kind)
        filled = [a.format(folder=folder) for a in args]
        return Cli([command, run_id, "--runs-dir", str(store), *filled], interrupt_after=interrupt_after)
    return build


def size_cases() -> list[Case]:
    klass = "sizes"
    seconds = CLI_SECONDS  # a refusal takes 5-10 s on an idle machine, 30 s at a load of 10
    cases = [
        Case(klass, "numbers_en_de of 1e9 numbers", train("numbers_en_de", "seq2seq", "last=1000000000"),
             "refused", seconds=seconds, quick=True),
        Case(klass, "toy_pairs 1e6 x 1000", train("toy_pairs", "seq2seq", "samples=1000000", "min_length=1000",
                                                  "max_length=1000"), "refused", seconds=seconds),
        Case(klass, "written_dates of 1e6", train("written_dates", "lstm", "samples=1000000"), "refused",
             seconds=seconds),
        Case(klass, "dates of 1e6", train("dates", "seq2seq", "samples=1000000"), "refused", seconds=seconds),
        # BPE stops at about 6,400 tokens on pydoc (no pair seen twice more): a run of one epoch that shows every
        # batch and can be cancelled, then Markov baselines scored in one piece estimated at about 36 s, within
        # max_work_seconds. Long (3 to 4 minutes at a load of 5), not stuck: it must finish.
        Case(klass, "BPE vocabulary 100,000 on pydoc", train("pydoc", "lstm", "tokenizer=bpe",
                                                             "vocab_size=100000"), "ok", seconds=LONG_RUN_SECONDS),
        Case(klass, "BPE vocabulary 100,000 on pydoc, GPT", train("pydoc", "gpt", "tokenizer=bpe",
                                                                  "vocab_size=100000"), "ok", seconds=LONG_RUN_SECONDS),
        Case(klass, "HMM 256 states x 500 iterations", train("pydoc", "hmm", "states=256", "iterations=500"),
             "refused", seconds=seconds, quick=True),
        Case(klass, "HMM 256 states on a 19 MB text", lambda bench, folder: Cli([
            "train", "--runs-dir", str(folder / "store"), "--dataset", f"text:{big_text(folder)}", "--model", "hmm",
            "--set", "states=256"]), "refused", seconds=seconds),
        Case(klass, "copy task 1e6 x delay 10,000", train("copy", "lstm", "samples=1000000", "delay=10000"),
             "refused", seconds=seconds),
        Case(klass, "adding 1e6 x 2,000 steps", train("adding", "lstm", "samples=1000000", "length_T=2000"),
             "refused", seconds=seconds),
        Case(klass, "sine 1e6 x lookback 2,000", train("sine", "lstm", "length=1000000", "lookback=2000"),
             "refused", seconds=seconds),
        Case(klass, "energy horizon 100,000", train("energy", "lstm", "horizon=100000"), "refused",
             seconds=seconds),
        Case(klass, "GPT width 1024 x 8 layers", train("pydoc", "gpt", "width=1024", "layers=8", "ff_units=4096"),
             "refused", seconds=seconds),
        Case(klass, "LSTM 1024 x 8 bidirectional", train("sine", "lstm", "units=1024", "layers=8",
                                                         "bidirectional=true"), "refused", seconds=seconds),
        Case(klass, "ESN of 2,000 units on 1e6 steps", train("sine", "esn", "units=2000", "length=1000000"),
             "refused", seconds=seconds),
    ]

    def markov_big(bench, folder):
        return Cli(["train", "--runs-dir", str(folder / "store"), "--dataset", f"text:{big_text(folder)}",
                    "--model", "markov", "--set", "order=5"])

    cases.append(Case(klass, "Markov chain on a 19 MB text", markov_big, "refused", seconds=seconds))
    for value in ("epochs=0", "epochs=-1", "units=0", "units=-5", "units=nan", "learning_rate=nan",
                  "learning_rate=inf", "learning_rate=-1", "dropout=nan", "lookback=0", "batch_size=0",
                  "seed=-1", "units=1e999", "epochs=1000000000"):
        cases.append(Case(klass, f"--set {value}", train("sine", "lstm", value, epochs=None), "refused",
                          seconds=seconds,
                          quick=value in ("units=nan", "learning_rate=nan")))
    for samples in ("1000000000", "1000000", "0", "-1"):
        cases.append(Case(klass, f"forecast --samples {samples}",
                          on_run("forecast", "forecast", "--strategy", "monte_carlo", "--samples", samples),
                          "refused", seconds=seconds, quick=samples in ("1000000000", "1000000")))
    for args in (("--every", "0"), ("--every", "-3"), ("--horizon", "0"), ("--horizon", "100000000"),
                 ("--horizon", "-1")):
        cases.append(Case(klass, f"forecast {' '.join(args)}", on_run("forecast", "forecast", *args), "refused",
                          seconds=seconds))
    cases.append(Case(klass, "forecast --samples 20 (valid)", on_run(
        "forecast", "forecast", "--strategy", "monte_carlo", "--samples", "20", "--every", "20"), "ok",
        seconds=seconds, quick=True))
    for args in (("--tokens", "-1"), ("--tokens", "1000000000"), ("--temperature", "nan"), ("--temperature", "-1"),
                 ("--top-k", "0"), ("--top-p", "2"), ("--top-p", "nan")):
        cases.append(Case(klass, f"generate {' '.join(args)}", on_run("language", "generate", "--prompt", "the",
                                                                      *args), "refused", seconds=seconds))
    cases.append(Case(klass, "generate --tokens 5 (valid)", on_run("language", "generate", "--prompt", "the",
                                                                   "--tokens", "5"), "ok", seconds=seconds))
    for args in (("--beam", "0"), ("--beam", "1000000"), ("--length-penalty", "nan")):
        cases.append(Case(klass, f"translate {' '.join(args)}", on_run("translate", "translate", "--text", "abc",
                                                                       *args), "refused", seconds=seconds))
    cases.append(Case(klass, "translate (valid)", on_run("translate", "translate", "--text", "abc"), "ok",
                      seconds=seconds))

    def huge_csv(bench, folder):
        store, (run_id,) = bench.store_with(folder, "forecast")
        path = folder / "huge.csv"
        with path.open("w") as f:
            f.write("y\n" + "0.5\n" * (16 << 20))
        return Cli(["predict", run_id, "--runs-dir", str(store), "--input", str(path)])

    cases.append(Case(klass, "predict --input of 64 MB", huge_csv, "refused", seconds=seconds))
    return cases


# store and CLI -------------------------------------------------------------


def store_cases() -> list[Case]:
    klass = "store and CLI"
    cases = []

    def slow_train(store_arg: str) -> list[str]:  # minutes of training: a late check shows as a timeout
        return ["train", "--runs-dir", store_arg, "--dataset", "sine", "--model", "lstm", "--epochs", "200"]

    def read_only(bench, folder):
        mount_tmpfs(folder / "store", "1m", read_only=True)
        return Cli(slow_train(str(folder / "store")))

    def mode(bits):
        def build(bench, folder):
            store = folder / "store"
            store.mkdir()
            store.chmod(bits)
            return Cli(slow_train(str(store)), heed_modes=True)
        return build

    def below_file(bench, folder):
        (folder / "a-file").write_text("x")
        return Cli(slow_train(str(folder / "a-file" / "store")))

    def store_is_file(bench, folder):
        (folder / "store").write_text("x")
        return Cli(slow_train(str(folder / "store")))

    def nothing_left(folder, outcome):  # no run, no temporary folder, no partial file (an empty mark may stay)
        store = folder / "store"
        if store.is_dir() and os.access(store, os.R_OK):
            left = [p.name for p in store.iterdir() if p.is_dir() or p.stat().st_size]
            return f"left in the store: {', '.join(left)}" if left else None
        return None

    cases += [
        Case(klass, "train into a read-only store (mount)", read_only, "refused", nothing_left, 45, quick=True),
        Case(klass, "train into a mode 555 store", mode(0o555), "refused", nothing_left, 45),
        Case(klass, "train into a mode 000 store", mode(0o000), "refused", None, 45),
        Case(klass, "train into a store below a file", below_file, "refused", None, 45),
        Case(klass, "train into a store that is a file", store_is_file, "refused", None, 45),
    ]

    def full_disk_train(size):
        def build(bench, folder):
            mount_tmpfs(folder / "store", size)
            return Cli(["train", "--runs-dir", str(folder / "store"), "--dataset", "sine", "--model", "arx"])
        return build

    def fsize_train(bench, folder):
        return Cli(["train", "--runs-dir", str(folder / "store"), "--dataset", "sine", "--model", "arx"],
                   file_limit=20_000)

    cases += [
        Case(klass, "train onto a full disk (64 KB tmpfs)", full_disk_train("64k"), "refused", nothing_left,
             quick=True),
        Case(klass, "train onto a full disk (100 KB tmpfs)", full_disk_train("100k"), "refused", nothing_left),
        Case(klass, "train under ulimit -f 20 KB", fsize_train, "refused", nothing_left),
    ]

    for fmt in ("savedmodel", "keras", "zip"):
        for how in ("full tmpfs", "ulimit -f"):
            def build(bench, folder, fmt=fmt, how=how):
                store, (run_id,) = bench.store_with(folder, "language")
                target = folder / "out"
                limit = None
                if how == "full tmpfs":
                    mount_tmpfs(target, "8k")  # smaller than any of the three exports
                else:
                    target.mkdir()
                    limit = 30_000
                to = target / ("model.keras" if fmt == "keras" else f"export-{fmt}")
                return Cli(["export", run_id, "--runs-dir", str(store), "--format", fmt, "--to", str(to)],
                           file_limit=limit)

            def check(folder, outcome):
                target = folder / "out"
                left = [p.name for p in target.iterdir()] if target.is_dir() else []
                if left:
                    return f"left at the target: {', '.join(left)}"
                if str(target) not in outcome.err:
                    return "the error does not name the destination"
                return None

            cases.append(Case(klass, f"export {fmt} under a full disk ({how})", build, "refused", check,
                              quick=fmt == "zip" and how == "full tmpfs"))

    def export_valid(bench, folder):
        store, (run_id,) = bench.store_with(folder, "language")
        return Cli(["export", run_id, "--runs-dir", str(store), "--format", "zip", "--to", str(folder / "x.zip")])

    cases.append(Case(klass, "export zip (valid)", export_valid, "ok",
                      lambda folder, outcome: None if (folder / "x.zip").is_file() else "no zip written"))

    # the sweep: files seqlab did not make survive every command
    def sweep_case(command: str, kinds=("language",)):
        def build(bench, folder):
            store, ids = bench.store_with(folder, *kinds)
            foreign = foreign_files(store)
            folder.joinpath("foreign.json").write_text(json.dumps([str(p) for p in foreign]))
            run_id = ids[0] if ids else ""
            return {
                "runs": lambda: Cli(["runs", "--runs-dir", str(store)]),
                "runs --json": lambda: Cli(["runs", "--runs-dir", str(store), "--json"]),
                "delete": lambda: Cli(["delete", run_id, "--runs-dir", str(store), "--yes"]),
                "export": lambda: Cli(["export", run_id, "--runs-dir", str(store), "--format", "keras",
                                       "--to", str(folder / "m.keras")]),
                "generate": lambda: Cli(["generate", run_id, "--runs-dir", str(store), "--prompt", "the",
                                         "--tokens", "3"]),
                "train": lambda: Cli(["train", "--runs-dir", str(store), "--dataset", "sine", "--model", "arx"]),
                "library scan": lambda: Lib("scan", [str(store)]),
                "library delete": lambda: Lib("delete_listed", [str(store)]),
            }[command]()

        def check(folder, outcome):
            return all_there([Path(p) for p in json.loads(folder.joinpath("foreign.json").read_text())])

        return Case(klass, f"foreign .tmp-* files two hours old survive {command}", build, "ok", check,
                    quick=command in ("runs", "library scan"))

    for command in ("runs", "runs --json", "delete", "export", "generate", "library scan", "library delete"):
        cases.append(sweep_case(command))
    cases.append(sweep_case("train", kinds=()))

    def home_folder(bench, folder):  # --runs-dir naming a folder that is no store
        home = folder / "store"
        home.mkdir()
        foreign = foreign_files(home)
        (home / "thesis.tex").write_text("keep")
        folder.joinpath("foreign.json").write_text(json.dumps([str(p) for p in [*foreign, home / "thesis.tex"]]))
        return Cli(["runs", "--runs-dir", str(home)])

    cases.append(Case(klass, "runs --runs-dir on someone's home folder", home_folder, "ok",
                      lambda folder, outcome: all_there(
                          [Path(p) for p in json.loads(folder.joinpath("foreign.json").read_text())]),
                      quick=True))

    # delete accepts every name the listing names
    for name in ("my run (copy)", "run with spaces", "ünïcode run", "-starts-with-a-dash", "quote's run",
                 "tab\there", "x" * 200, "semi;colon $(true)"):
        def build(bench, folder, name=name):
            store, ids = bench.store_with(folder, "language", "forecast", name=name)
            folder.joinpath("ids.json").write_text(json.dumps(ids))
            listed = run_process([sys.executable, "-m", "seqlab", "runs", "--runs-dir", str(store)], cwd=folder,
                                 env=bench.env, seconds=60)
            suggestion = [line for line in listed.err.splitlines() if "python -m seqlab delete" in line]
            if suggestion:  # listed as broken: the command it suggests, as a shell would split it
                command = suggestion[0].rsplit("python -m seqlab ", 1)[1].removesuffix(")")
                try:
                    args = shlex.split(command)
                except ValueError as err:
                    args = ["delete", f"(cannot split: {err})"]
                return Cli([*args, "--runs-dir", str(store), "--yes"])
            if name not in listed.out:
                raise Unavailable(f"the listing names it nowhere: {listed.err.strip()[:200]}")
            return Cli(["delete", "--runs-dir", str(store), "--yes", "--", name])  # a readable run

        def check(folder, outcome, name=name):
            ids = json.loads(folder.joinpath("ids.json").read_text())
            if (folder / "store" / name).exists():
                return "still there"
            if not (folder / "store" / ids[1]).is_dir():
                return "the other run went too"
            return None

        cases.append(Case(klass, f"delete what the listing names: {name[:40]!r}", build, "ok", check,
                          quick=name == "my run (copy)"))

    def delete_outside(bench, folder):
        store, ids = bench.store_with(folder, "language")
        (folder / "victim").mkdir()
        return Cli(["delete", "../victim", "--runs-dir", str(store), "--yes"])

    cases.append(Case(klass, "delete ../victim", delete_outside, "refused",
                      lambda folder, outcome: None if (folder / "victim").is_dir() else "deleted outside the store"))

    # Ctrl-C
    for command, args, after in (
        ("predict", ["--text", "the cat sat"], 1.0),
        ("predict", ["--text", "the cat sat"], 2.5),
        ("generate", ["--prompt", "the", "--tokens", "100000"], 1.0),
        ("generate", ["--prompt", "the", "--tokens", "100000"], 8.0),
    ):
        kind = {"predict": "classify", "generate": "language"}[command]
        cases.append(Case(klass, f"Ctrl-C after {after} s of {command}",
                          on_run(kind, command, *args, interrupt_after=after), "interrupted", seconds=45,
                          quick=command == "predict" and after == 2.5))

    # contradictory or malformed --set, pairs of spaces
    for sets in (("val_fraction=0.6", "test_fraction=0.6"), ("val_fraction=0.49", "test_fraction=0.49",
                                                             "lookback=1500"),
                 ("a b=1",), (" =1",), ("no_such_option=1",), ("units",)):
        cases.append(Case(klass, f"--set {' '.join(sets)}", train("sine", "lstm", *sets), "refused", seconds=45,
                          quick=sets == ("a b=1",)))

    for content, label in ((" \n  \n\t\n", "spaces and tabs only"), ("   \t   \n" * 50, "tabs between spaces"),
                           ("\n\n\n", "empty lines"), ("a\t\nb\t\n" * 30, "empty targets")):
        def build(bench, folder, content=content):
            (folder / "pairs.tsv").write_text(content)
            return Cli(["train", "--runs-dir", str(folder / "store"), "--dataset", f"pairs:{folder / 'pairs.tsv'}",
                        "--model", "seq2seq", "--epochs", "1"])

        cases.append(Case(klass, f"pairs file of {label}", build, "refused", seconds=45,
                          quick=label == "spaces and tabs only"))
    return cases


def all_cases() -> list[Case]:
    return archive_cases() + run_file_cases() + size_cases() + store_cases()


# ---------------------------------------------------------------- main


def answer(outcome: Outcome) -> str:
    """What a case answered, on one line."""
    if outcome.killed:
        return f"killed: {outcome.killed}"
    if outcome.error:
        return f"{outcome.error['type']}: {' '.join(outcome.error['message'].split())[:300]}"
    if outcome.value is not None:
        return f"returned {json.dumps(outcome.value, default=str)[:300]}"
    last = (outcome.err.strip().splitlines() or outcome.out.strip().splitlines() or [""])[-1]
    return f"exit {outcome.rc}: {last[:300]}"


def report(results: list[tuple[Case, str | None, Outcome | None]]) -> int:
    held = 0
    for klass in CLASSES:
        mine = [r for r in results if r[0].klass == klass]
        if not mine:
            continue
        ok = sum(problem is None for _, problem, _ in mine)
        held += ok
        print(f"\n{klass}: {ok} of {len(mine)} held")
        for case, problem, outcome in mine:
            if problem is not None:
                where = f" ({outcome.seconds:.1f} s, {outcome.peak_mb:,.0f} MB)" if outcome else ""
                print(f"  not held: {case.name}: {problem}{where}")
    print(f"\n{held} of {len(results)} held")
    return 0 if held == len(results) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 cases, a few of each kind")
    parser.add_argument("--only", help="only the cases whose class or name contains this")
    parser.add_argument("--list", action="store_true", help="print the cases' names and stop")
    parser.add_argument("--runs-from", type=Path, help="a store whose runs to copy instead of training them")
    parser.add_argument("--verbose", action="store_true", help="print what each case answered")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve()
        return 0
    cases = [c for c in all_cases() if (not args.quick or c.quick)
             and (not args.only or args.only in f"{c.klass}: {c.name}")]
    if args.list:
        for c in cases:
            print(f"{c.klass}: {c.name}")
        print(f"{len(cases)} cases")
        return 0
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="seqlab-hostile-") as tmp:
        bench = Bench(Path(tmp), args.runs_from)
        try:
            for index, case in enumerate(cases):
                try:
                    problem, outcome = bench.run(case, index)
                except Unavailable as err:
                    problem, outcome = f"could not run here: {err}", None
                results.append((case, problem, outcome))
                mark = "held" if problem is None else "NOT HELD"
                took = f"{outcome.seconds:5.1f} s {outcome.peak_mb:6,.0f} MB" if outcome else ""
                print(f"[{index + 1}/{len(cases)}] {mark:8s} {took:18s} {case.klass}: {case.name}",
                      file=sys.stderr, flush=True)
                if args.verbose and outcome is not None:
                    print(f"    {answer(outcome)}", file=sys.stderr, flush=True)
        finally:
            bench.worker.stop()
            _unmount_all(Path(tmp))
            for path in Path(tmp).rglob("*"):  # a mode-000 folder would stop the clean-up
                with contextlib.suppress(OSError):
                    if path.is_dir() and not path.is_symlink():
                        path.chmod(0o755)
    code = report(results)
    print(f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
