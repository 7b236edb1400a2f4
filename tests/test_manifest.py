import json
import shutil
import stat

import pytest

from seqlab.manifest import home, regular_files, signing_key, verify_folder
from seqlab.runs import RunStore


def test_a_written_run_lists_every_file_signed(trained_run):
    manifest = json.loads((trained_run.path / "manifest.json").read_text())
    files = set(regular_files(trained_run.path)) - {"manifest.json"}
    assert set(manifest["files"]) == files
    assert {"model.keras", "meta.json", "savedmodel/saved_model.pb"} <= files
    assert any(name.startswith("savedmodel/variables/") for name in files)
    assert len(manifest["hmac_sha256"]) == 64
    assert verify_folder(trained_run.path) is None


def test_the_key_is_private_and_created_once(seqlab_home):
    key = signing_key()
    path = home() / "signing.key"
    assert path.parent == seqlab_home and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key) == 32 and signing_key() == key


def test_a_key_others_can_read_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_HOME", str(tmp_path))
    signing_key()
    (tmp_path / "signing.key").chmod(0o644)
    with pytest.raises(ValueError, match="chmod 600"):
        signing_key()


def test_a_file_changed_in_place_fails_verification(trained_run, tmp_path):
    folder = tmp_path / trained_run.run_id
    shutil.copytree(trained_run.path, folder)
    data = next((folder / "savedmodel" / "variables").glob("variables.data-*"))
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0xFF  # same size: only the hash tells
    data.write_bytes(bytes(raw))
    assert "variables/variables.data" in verify_folder(folder) and "changed" in verify_folder(folder)
    with pytest.raises(ValueError, match="variables.data-.* was changed after seqlab wrote it"):
        RunStore(tmp_path).read(trained_run.run_id)  # the store hashes too, not only sizes


def test_a_run_signed_with_another_key_fails_verification(trained_run, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_HOME", str(tmp_path / "someone-else"))
    assert "not signed with this user's key" in verify_folder(trained_run.path)


def test_an_edited_manifest_fails_verification(trained_run, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(trained_run.path, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["model.keras"]["sha256"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert "not signed with this user's key" in verify_folder(folder)


def test_no_manifest_is_not_trusted(trained_run, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(trained_run.path, folder)
    (folder / "manifest.json").unlink()
    assert "no manifest.json" in verify_folder(folder)


def test_a_link_in_the_folder_is_never_listed(tmp_path):
    (tmp_path / "a").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "passwd").symlink_to("/etc/passwd")
    (tmp_path / "linked").symlink_to(tmp_path / "sub", target_is_directory=True)
    assert regular_files(tmp_path) == ["a"]
