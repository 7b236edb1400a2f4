import shutil

import pytest

from seqlab.runs import RunStore


def test_listing_skips_and_reports_broken_folders(trained_run, tmp_path):
    store = RunStore(tmp_path / "store")
    shutil.copytree(trained_run.path, store.root / trained_run.run_id)
    (store.root / "half-written").mkdir()
    (store.root / "half-written" / "spec.json").write_text("{")
    corrupt = store.root / "corrupt"
    shutil.copytree(trained_run.path, corrupt)
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
    shutil.copytree(trained_run.path, tmp_path / "copy")
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
