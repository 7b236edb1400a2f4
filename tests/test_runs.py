import errno
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seqlab.runs import RunStore
from seqlab.scratch import SCRATCH_MARK, SCRATCH_PREFIX, is_store, make_scratch
from tests.cli_store import copy_run as copy_run_through_write

REPO = Path(__file__).resolve().parents[1]


def copy_run(run, root, name=None):
    """A copy of ``run``'s folder under ``root`` (as ``name``); its path."""
    target = root / (name or run.run_id)
    shutil.copytree(run.path, target)
    return target


def edit_json(path, change):
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def test_listing_skips_and_reports_broken_folders(trained_run, tmp_path):
    store = RunStore(tmp_path / "store")
    copy_run(trained_run, store.root)
    (store.root / "half-written").mkdir()
    (store.root / "half-written" / "spec.json").write_text("{")
    corrupt = copy_run(trained_run, store.root, "corrupt")
    (corrupt / "metrics.json").write_text("{not json")
    (store.root / ".tmp-in-progress").mkdir()  # an unfinished atomic write is invisible
    assert [r.run_id for r in store.list()] == [trained_run.run_id]
    broken = store.broken()
    assert set(broken) == {"half-written", "corrupt"}
    assert "missing" in broken["half-written"] and "corrupt" in broken["corrupt"]


def test_a_failed_write_leaves_nothing(tmp_path):
    store = RunStore(tmp_path)

    def fill(folder):
        (folder / "spec.json").write_text("{}")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        store.write("r1", fill)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_writing_is_one_clear_error_and_keeps_nothing(tmp_path):
    root = tmp_path / "runs"

    def fill(folder):
        (folder / "spec.json").write_text("{")  # half written
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "spec.json"))

    with pytest.raises(ValueError, match=f"Could not write run 'r1' to {root}: No space left on device; nothing"):
        RunStore(root).write("r1", fill)
    assert list(tmp_path.iterdir()) == []  # not even the store folder this write made


def test_delete_and_unknown_runs(trained_run, tmp_path):
    store = RunStore(tmp_path)
    copy_run(trained_run, tmp_path, "copy")
    store.delete("copy")
    assert store.list() == [] and list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="Unknown run"):
        store.read("copy")
    with pytest.raises(ValueError, match="Unknown run"):
        store.delete("copy")


def test_root_follows_the_environment(runs_dir):
    assert RunStore().root == runs_dir


def test_a_broken_run_can_be_deleted(tmp_path):
    store = RunStore(tmp_path)
    (tmp_path / "half-written").mkdir()
    (tmp_path / "half-written" / "spec.json").write_text("{")
    assert "half-written" in store.broken()
    store.delete("half-written")
    assert store.broken() == {} and list(tmp_path.iterdir()) == []


def test_a_written_run_folder_is_readable_by_others(tmp_path):
    path = RunStore(tmp_path).write("r1", lambda folder: (folder / "spec.json").write_text("{}"))
    assert path.stat().st_mode & 0o777 == 0o755


# ---------------------------------------------------------------- containment


@pytest.mark.parametrize(
    "run_id",
    ["..", "../x", "/etc", "a/b", "a\0b", "x" * 1000, ".hidden", "", "run id", "~"],
    ids=["dotdot", "dotdot-x", "absolute", "slash", "nul", "1000-chars", "hidden", "empty", "space", "tilde"],
)
def test_a_run_id_is_a_plain_folder_name(tmp_path, run_id):
    store = RunStore(tmp_path / "runs")
    (tmp_path / "x").mkdir()  # what "../x" would reach
    for action in (store.path_of, store.read, store.delete):
        with pytest.raises(ValueError, match="is not a run id"):
            action(run_id)
    assert (tmp_path / "x").is_dir()


def test_an_absolute_path_to_a_real_run_is_refused(trained_run, tmp_path):
    store = RunStore(tmp_path)
    path = copy_run(trained_run, tmp_path)
    with pytest.raises(ValueError, match="is not a run id"):
        store.read(str(path))


def test_a_link_leading_out_of_the_root_is_refused(trained_run, tmp_path):
    store = RunStore(tmp_path / "runs")
    outside = copy_run(trained_run, tmp_path, "outside")
    store.root.mkdir()
    (store.root / "evil").symlink_to(outside, target_is_directory=True)
    for action in (store.path_of, store.read, store.delete):
        with pytest.raises(ValueError, match="does not follow links"):
            action("evil")
    assert "does not follow links" in store.broken()["evil"] and store.list() == []
    assert (outside / "model.keras").is_file()  # delete never reached it


def test_a_link_to_another_run_is_refused_too(trained_run, tmp_path):
    store = RunStore(tmp_path)
    copy_run(trained_run, tmp_path, "real")
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    with pytest.raises(ValueError, match="does not follow links"):
        store.delete("alias")  # would otherwise remove "real"
    assert [r.run_id for r in store.list()] == ["real"]


def test_path_of_stays_inside_the_root(tmp_path):
    store = RunStore(tmp_path / "runs")
    name = "20260101-000000-sine-lstm-abcd"
    assert store.path_of(name) == (tmp_path / "runs").resolve() / name


# ---------------------------------------------------------------- validated files


def _meta(change):
    return lambda folder: edit_json(folder / "meta.json", change)


def _metrics(change):
    return lambda folder: edit_json(folder / "metrics.json", change)


def _remove_manifest_then(damage):
    def both(folder):
        (folder / "manifest.json").unlink()
        damage(folder)
    return both


BROKEN = {
    "meta-a-list": (_meta(lambda m: [m]), "meta.json must hold a JSON object"),
    "meta-missing-key": (_meta(lambda m: {k: v for k, v in m.items() if k != "features"}),
                         r"missing field\(s\) \['features'\]"),
    "meta-unknown-key": (_meta(lambda m: {**m, "colour": "red"}), r"unknown field\(s\) \['colour'\]"),
    "meta-wrong-type": (_meta(lambda m: {**m, "lookback": "50"}), "lookback must be int | None"),
    "meta-shape-vs-features": (_meta(lambda m: {**m, "input_shape": [50, 3]}), "input_shape"),
    "meta-bool-is-not-int": (_meta(lambda m: {**m, "parameters": True}), "parameters must be int"),
    "metrics-list": (_metrics(lambda m: [m]), "exactly the keys 'model' and 'baselines'"),
    "metrics-no-baselines": (_metrics(lambda m: {"model": m["model"]}), "exactly the keys"),
    "metrics-text-value": (_metrics(lambda m: {**m, "model": {"mae": "low"}}),
                           "model must map metric names to numbers"),
    "spec-no-dataset": (lambda f: edit_json(f / "spec.json", lambda s: {k: v for k, v in s.items() if k != "dataset"}),
                        "dataset must be text"),
    "spec-unknown": (lambda f: edit_json(f / "spec.json", lambda s: {**s, "hack": 1}), "unknown field"),
    "history-list": (lambda f: (f / "history.json").write_text("[]"), "history.json must hold a JSON object"),
    "truncated-model": (lambda f: (f / "model.keras").write_bytes((f / "model.keras").read_bytes()[:100]),
                        "model.keras was changed"),
    "truncated-model-no-manifest": (
        _remove_manifest_then(lambda f: (f / "model.keras").write_bytes((f / "model.keras").read_bytes()[:100])),
        "model.keras is damaged"),
    "foreign-savedmodel": (lambda f: (f / "savedmodel" / "saved_model.pb").write_bytes(b"\x08\x01" * 10),
                           "saved_model.pb was changed"),
    "added-file": (lambda f: (f / "savedmodel" / "extra.pb").write_bytes(b"x"), "added"),
    "missing-savedmodel": (lambda f: shutil.rmtree(f / "savedmodel"), "savedmodel/saved_model.pb missing"),
    "deep-json": (lambda f: (f / "meta.json").write_text("[" * 100_000 + "]" * 100_000), "corrupt"),
    "deep-manifest": (lambda f: (f / "manifest.json").write_text("[" * 100_000 + "]" * 100_000),
                      "manifest.json is unreadable .*nests arrays or objects more than 100 levels"),
    "deep-name": (lambda f: (f / "name.json").write_text("[" * 100_000 + "]" * 100_000), "name.json is unreadable"),
    "model-changed-in-place": (lambda f: _flip_last_byte(f / "model.keras"), "model.keras was changed"),
    "fifo-predictions-no-manifest": (_remove_manifest_then(lambda f: _fifo(f / "predictions.npz")),
                                     "predictions.npz is not a regular file"),
}


def _flip_last_byte(path):
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF  # same size: only the hash tells
    path.write_bytes(bytes(raw))


def _fifo(path):
    path.unlink()
    os.mkfifo(path)  # opening it would block until a writer came


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_malformed_run_is_listed_as_broken_with_the_reason(trained_run, tmp_path, name):
    damage, reason = BROKEN[name]
    store = RunStore(tmp_path)
    copy_run(trained_run, tmp_path)
    damage(copy_run(trained_run, tmp_path, "bad"))
    runs, broken = store.scan()
    assert [r.run_id for r in runs] == [trained_run.run_id]
    assert list(broken) == ["bad"]
    assert broken["bad"].startswith("Run 'bad'") and re.search(reason, broken["bad"]), broken["bad"]
    store.delete("bad")
    assert store.broken() == {} and len(store.list()) == 1


def test_runs_written_before_manifests_still_load(trained_run, tmp_path):
    folder = copy_run(trained_run, tmp_path)
    (folder / "manifest.json").unlink()
    meta = json.loads((folder / "meta.json").read_text())
    del meta["classes"]  # older runs wrote it only for class tasks
    (folder / "meta.json").write_text(json.dumps(meta))
    run = RunStore(tmp_path).read(trained_run.run_id)
    assert run.meta == trained_run.meta and run.meta.classes is None


def test_a_run_exists_until_deleted(trained_run, tmp_path):
    copy_run(trained_run, tmp_path)
    store = RunStore(tmp_path)
    run = store.read(trained_run.run_id)
    assert run.exists()
    store.delete(run.run_id)
    assert not run.exists()


# ---------------------------------------------------------------- sweep and durability


def _age(path, seconds):
    past = time.time() - seconds
    os.utime(path, (past, past))


def _scratch(root, age=7200):
    """A scratch folder as a crashed write or delete leaves it, ``age`` seconds old, with a file inside."""
    folder = make_scratch(root)
    (folder / "r1" / "savedmodel").mkdir(parents=True)
    (folder / "r1" / "savedmodel" / "saved_model.pb").write_bytes(b"x")
    _age(folder, age)
    return folder


def _store(trained_run, root):
    """A run store, marked as seqlab marks one, holding a copy of ``trained_run``."""
    copy_run_through_write(root, trained_run, trained_run.run_id)
    assert is_store(root)
    return RunStore(root)


def test_sweep_removes_old_scratch_folders_only(trained_run, tmp_path):
    store = _store(trained_run, tmp_path)
    old, fresh = _scratch(tmp_path), _scratch(tmp_path, age=0)
    others = [tmp_path / ".cache", tmp_path / ".tmp-build-cache", tmp_path / ".deleting-r2-abcd",
              tmp_path / (SCRATCH_PREFIX + "12345678")]  # the last: our prefix, but not our mark
    for folder in others:
        folder.mkdir()
        (folder / "someone-elses-work.txt").write_text("keep")
        _age(folder, 7200)
    killed = tmp_path / (SCRATCH_PREFIX + "abcdefgh")  # killed before its mark was made: empty, nothing to lose
    killed.mkdir()
    _age(killed, 7200)

    assert sorted(store.sweep()) == sorted([old.name, killed.name])
    assert fresh.is_dir() and all((f / "someone-elses-work.txt").is_file() for f in others)
    assert store.sweep(grace_seconds=0) == [fresh.name]
    assert all((f / "someone-elses-work.txt").is_file() for f in others)
    assert [r.run_id for r in store.list()] == [trained_run.run_id]


def test_listing_never_sweeps_and_writing_sweeps_only_a_marked_store(trained_run, tmp_path):
    # The probe's case: a plain listing removed someone's two-hour-old .tmp-build-cache from --runs-dir.
    plain = tmp_path / "shared"
    (plain / ".tmp-build-cache").mkdir(parents=True)
    (plain / ".tmp-build-cache" / "someone-elses-work.txt").write_text("keep")
    (plain / "notes.txt").write_text("a folder of other things, not a store")
    old = _scratch(plain)
    _age(plain / ".tmp-build-cache", 7200)
    RunStore(plain).scan()
    assert (plain / ".tmp-build-cache" / "someone-elses-work.txt").is_file() and old.is_dir()
    copy_run_through_write(plain, trained_run, "r1")  # a run can be written there, but it is no store of ours
    assert not is_store(plain) and old.is_dir() and (plain / ".tmp-build-cache").is_dir()

    store = _store(trained_run, tmp_path / "store")
    leftover = _scratch(store.root)
    store.scan()
    assert leftover.is_dir()  # listing is read-only
    copy_run_through_write(store.root, trained_run, "r2")
    assert not leftover.exists()  # the next write swept it


def test_an_older_store_holding_runs_is_marked_on_its_next_write(trained_run, tmp_path):
    copy_run(trained_run, tmp_path)  # as a seqlab before the mark left it
    assert not is_store(tmp_path)
    copy_run_through_write(tmp_path, trained_run, "r2")
    assert is_store(tmp_path)


def test_sweep_never_takes_a_folder_in_use(trained_run, tmp_path):
    store = _store(trained_run, tmp_path)
    busy = _scratch(tmp_path)
    fd = os.open(busy, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as RunStore.write holds it while filling
        assert store.sweep(grace_seconds=0) == [] and busy.is_dir()
    finally:
        os.close(fd)
    assert store.sweep(grace_seconds=0) == [busy.name]


def test_sweep_leaves_a_running_write_alone(tmp_path):
    store = RunStore(tmp_path)
    seen = []

    def fill(folder):
        (folder / "spec.json").write_text("{}")
        seen.append(store.sweep(grace_seconds=0))

    store.write("r1", fill)
    store.write("r2", fill)  # the store is marked now: the sweep runs, and leaves the live write alone
    assert seen == [[], []] and (tmp_path / "r2" / "spec.json").is_file()


def test_sweep_does_not_follow_links(trained_run, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / SCRATCH_MARK).write_text("")
    (victim / "keep").write_text("x")
    store = _store(trained_run, tmp_path / "runs")
    (store.root / (SCRATCH_PREFIX + "abcdefgh")).symlink_to(victim, target_is_directory=True)
    assert store.sweep(grace_seconds=0) == []
    assert (victim / "keep").is_file()


def test_a_broken_folder_is_deleted_by_the_name_the_listing_gives(tmp_path):
    store = RunStore(tmp_path)
    (tmp_path / "my run (copy)").mkdir()
    (tmp_path / "my run (copy)" / "spec.json").write_text("{")
    (tmp_path / "outside").mkdir()
    assert "my run (copy)" in store.broken()
    store.delete("my run (copy)")
    assert store.broken() == {"outside": store.broken()["outside"]} and not (tmp_path / "my run (copy)").exists()
    for name in ("../outside", "my run (gone)", ".seqlab-store", "/etc"):  # still confined to listed folders
        with pytest.raises(ValueError):
            store.delete(name)
    assert (tmp_path / "outside").is_dir()


def test_write_fsyncs_every_file_and_the_root(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def recording_fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)

    def fill(folder):
        (folder / "spec.json").write_text("{}")
        (folder / "savedmodel" / "variables").mkdir(parents=True)
        (folder / "savedmodel" / "variables" / "v.data").write_bytes(b"123")

    path = RunStore(tmp_path).write("r1", fill)
    tmp_names = {p.rsplit("/", 1)[-1] for p in synced}
    assert {"spec.json", "v.data", "manifest.json", "variables", "savedmodel"} <= tmp_names
    assert synced[-1] == str(tmp_path.resolve())  # the root, after the rename
    assert (path / "manifest.json").is_file()


# ---------------------------------------------------------------- pipes and in-place changes


@pytest.mark.parametrize("name", ["manifest.json", "predictions.npz", "spec.json"])
def test_a_pipe_in_a_run_folder_never_blocks_the_listing(trained_run, tmp_path, name):
    copy_run(trained_run, tmp_path)
    bad = copy_run(trained_run, tmp_path, "bad")
    _fifo(bad / name)
    # In a child process, so that a listing that blocks on the pipe fails the test instead of hanging it.
    done = subprocess.run([sys.executable, "-m", "seqlab", "runs", "--runs-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert trained_run.run_id in done.stdout
    assert f"broken: bad: Run 'bad': {name} is not a regular file" in done.stderr
    RunStore(tmp_path).delete("bad")
    assert not bad.exists()


def test_a_file_changed_in_place_after_a_read_is_caught_and_reads_hash_once(trained_run, tmp_path, monkeypatch):
    import seqlab.manifest

    copy_run(trained_run, tmp_path)
    store = RunStore(tmp_path)
    hashed = []
    real_sha256 = seqlab.manifest.sha256
    monkeypatch.setattr(seqlab.manifest, "sha256", lambda path: hashed.append(path) or real_sha256(path))
    store.read(trained_run.run_id)
    first = len(hashed)
    assert first >= 5  # every file the manifest names
    store.read(trained_run.run_id)
    store.list()
    assert len(hashed) == first  # read again: a stat per file, no hashing
    model = tmp_path / trained_run.run_id / "model.keras"
    before = model.stat()
    _flip_last_byte(model)
    os.utime(model, ns=(before.st_atime_ns, before.st_mtime_ns))  # even with its old time put back
    with pytest.raises(ValueError, match="model.keras was changed after seqlab wrote it"):
        store.read(trained_run.run_id)
    assert "model.keras was changed" in store.broken()[trained_run.run_id]
