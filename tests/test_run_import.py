"""A run zip added to the store: a new id, its data intact, marked imported inside the signature, never trusted."""

import io
import json
import zipfile

import pytest

from seqlab.export import UntrustedModelError, load_serving, zip_bytes
from seqlab.manifest import MANIFEST, verify_folder
from seqlab.run_import import import_run
from seqlab.runs import RunStore
from seqlab.scratch import STORE_MARK
from tests.cli_store import copy_run


@pytest.fixture
def store(tmp_path, trained_run):
    copy_run(tmp_path / "runs", trained_run, trained_run.run_id)  # the zip's own id is taken
    RunStore(tmp_path / "runs").rename(trained_run.run_id, "mine")
    return RunStore(tmp_path / "runs")


def test_an_imported_run_gets_a_new_id_and_keeps_its_data(store, trained_run):
    source = store.read(trained_run.run_id)
    run = import_run(store, "theirs.zip", zip_bytes(source))
    assert run.run_id != trained_run.run_id and {r.run_id for r in store.list()} == {trained_run.run_id, run.run_id}
    assert run.imported["source"] == "theirs.zip" and run.imported["run_id"] == trained_run.run_id
    assert run.name == "mine"  # the zip carries the name
    assert run.metrics == source.metrics and run.history == source.history and run.spec == source.spec
    assert run.predictions()["y_pred"].shape == source.predictions()["y_pred"].shape
    assert store.read(trained_run.run_id).imported is None  # the run trained here is untouched
    again = import_run(store, "theirs.zip", zip_bytes(source))
    assert again.run_id not in (run.run_id, trained_run.run_id)  # never overwritten


def test_its_savedmodel_is_never_trusted_without_asking(store, trained_run):
    run = import_run(store, "theirs.zip", zip_bytes(store.read(trained_run.run_id)))
    assert "imported from the zip 'theirs.zip'" in verify_folder(run.path)
    with pytest.raises(UntrustedModelError, match="imported"):
        load_serving(run)
    assert callable(load_serving(run, trust=True))
    # Removing the mark breaks the signature: still untrusted.
    manifest = json.loads((run.path / MANIFEST).read_text())
    del manifest["imported"]
    (run.path / MANIFEST).write_text(json.dumps(manifest))
    assert "not signed with this user's key" in verify_folder(run.path)
    assert store.read(run.run_id).imported is None and "not signed" in verify_folder(store.read(run.run_id).path)


def _zip(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _without(data: bytes, dropped: str, changed: dict | None = None) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    files = {i.filename: source.read(i) for i in source.infolist() if not i.filename.endswith(dropped)}
    return _zip({**files, **(changed or {})})


def test_anything_but_a_readable_run_zip_is_refused_and_nothing_is_written(store, trained_run):
    good = zip_bytes(store.read(trained_run.run_id))
    meta = f"{trained_run.run_id}/meta.json"
    cases = [
        (b"not a zip", "not a readable zip"),
        (_zip({"a/readme.txt": "hello"}), "holds 0 run folders"),
        (_without(good, "metrics.json"), "incomplete, metrics.json missing"),
        (_without(good, "meta.json", {meta: json.dumps({"task": 1})}), "not a readable seqlab run: meta.json"),
        (_without(good, "name.json", {f"{trained_run.run_id}/name.json": json.dumps({"name": "a\nb"})}),
         "control characters"),
    ]
    for data, message in cases:
        with pytest.raises(ValueError, match=message):
            import_run(store, "bad.zip", data)
    assert [r.run_id for r in store.list()] == [trained_run.run_id] and not store.broken()
    assert not [p for p in store.root.iterdir() if p.name.startswith(".") and p.name != STORE_MARK]


def test_the_cli_lists_an_imported_run_with_its_badge(store, trained_run, capsys):
    from seqlab.cli import main

    run = import_run(store, "theirs.zip", zip_bytes(store.read(trained_run.run_id)))
    assert main(["runs", "--runs-dir", str(store.root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith(run.run_id) and line.endswith("'mine'  [imported]") for line in lines)
    assert main(["runs", "--json", "--runs-dir", str(store.root)]) == 0
    listed = {r["run_id"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    assert listed[run.run_id]["imported"]["source"] == "theirs.zip" and listed[trained_run.run_id]["imported"] is None


def test_a_zip_whose_tokenizer_nests_too_deep_is_refused(tmp_path, tiny_language_run):
    store = RunStore(tmp_path / "runs")
    tokenizer = f"{tiny_language_run.run_id}/tokenizer.json"
    data = _without(zip_bytes(tiny_language_run), "tokenizer.json", {tokenizer: "[" * 100_000 + "]" * 100_000})
    with pytest.raises(ValueError, match="'deep.zip' has an unreadable asset: .*tokenizer.json .*nests arrays"):
        import_run(store, "deep.zip", data)
    assert store.list() == [] and store.broken() == {}  # nothing was written


def _bomb_keras(keras_path) -> bytes:
    """The run's ``model.keras`` with 20 MB of spaces (about 20 KB deflated) as its ``config.json``."""
    with zipfile.ZipFile(keras_path) as source:
        members = {i.filename: source.read(i) for i in source.infolist()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in {**members, "config.json": b" " * (20 << 20)}.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_model_that_would_take_the_server_is_refused_on_import_and_nothing_is_written(
        tmp_path, trained_run, monkeypatch):  # fmt: skip
    store = RunStore(tmp_path / "runs")
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_MB", "1")
    model = f"{trained_run.run_id}/model.keras"
    bomb = _without(zip_bytes(trained_run), "model.keras", {model: _bomb_keras(trained_run.keras_path)})
    with pytest.raises(ValueError, match=r"'bomb.zip' holds a model .*'bomb.zip/.*model.keras' is too big"):
        import_run(store, "bomb.zip", bomb)
    monkeypatch.setenv("SEQLAB_MAX_PARAMETERS", str(trained_run.meta.parameters - 1))
    with pytest.raises(ValueError, match=f"'wide.zip' holds a model .*more than {trained_run.meta.parameters - 1:,} "
                                         "weights, the limit"):
        import_run(store, "wide.zip", zip_bytes(trained_run))
    assert not store.root.exists() or not [r for r in store.root.iterdir() if r.is_dir()]


def test_a_zip_with_a_file_and_a_folder_of_the_same_name_is_refused(tmp_path):
    store = RunStore(tmp_path / "runs")
    with pytest.raises(ValueError, match="'clash.zip' holds both a file and a folder named 'a'"):
        import_run(store, "clash.zip", _zip({"a": "x", "a/b": "y"}))
