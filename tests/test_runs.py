import fcntl
import json
import os
import re
import shutil
import time

import pytest

from seqlab.runs import RunStore


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
}


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


def test_sweep_removes_old_leftovers_only(trained_run, tmp_path):
    store = RunStore(tmp_path)
    copy_run(trained_run, tmp_path)
    old_tmp, old_deleting = tmp_path / ".tmp-r1-abc", tmp_path / ".deleting-r2-abcd"
    for folder in (old_tmp, old_deleting):
        (folder / "savedmodel").mkdir(parents=True)
        (folder / "savedmodel" / "saved_model.pb").write_bytes(b"x")
        _age(folder, 7200)
    fresh = tmp_path / ".tmp-r3-def"
    fresh.mkdir()
    other = tmp_path / ".cache"  # not a leftover of ours
    other.mkdir()
    _age(other, 7200)

    store.list()  # listing sweeps with the default grace period
    assert not old_tmp.exists() and not old_deleting.exists()
    assert fresh.is_dir() and other.is_dir()
    assert store.sweep(grace_seconds=0) == [fresh.name]
    assert other.is_dir() and [r.run_id for r in store.list()] == [trained_run.run_id]


def test_sweep_never_takes_a_folder_in_use(tmp_path):
    store = RunStore(tmp_path)
    busy = tmp_path / ".tmp-r1-abc"
    busy.mkdir()
    _age(busy, 7200)
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
    assert seen == [[]] and (tmp_path / "r1" / "spec.json").is_file()


def test_sweep_does_not_follow_links(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    root = tmp_path / "runs"
    root.mkdir()
    (root / ".tmp-link").symlink_to(victim, target_is_directory=True)
    assert RunStore(root).sweep(grace_seconds=0) == []
    assert (victim / "keep").is_file()


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
