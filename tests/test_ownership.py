"""Runs belong to someone: owner.json beside the signed run, who sees and changes which run, the teacher's key and
switches on the server."""

import json
import shutil

import pytest

from seqlab.classroom import CLASSROOM_FILE, Classroom, read_classroom, write_classroom
from seqlab.limits import CONFIG_ENV, TEACHER_KEY_ENV, teacher_key
from seqlab.manifest import verify_folder, write_manifest
from seqlab.ownership import SessionStore, Viewer
from seqlab.run_owner import OWNER_FILE, Ownership, check_owner, read_ownership
from seqlab.runs import RunStore
from seqlab.scratch import STORE_MARK
from seqlab.training import ExperimentSpec
from seqlab.training.jobs import JobManager
from tests.cli_store import copy_run

ADA, BOB = Viewer("ada"), Viewer("bob")


@pytest.fixture
def store(tmp_path, trained_run):
    """ada's run, bob's run, bob's shared run and a run of the CLI (no owner)."""
    root = tmp_path / "runs"
    plain = RunStore(root)
    for run_id, ownership in [("ada-run", Ownership("ada")), ("bob-run", Ownership("bob")),
                              ("bob-shared", Ownership("bob", shared=True)), ("cli-run", None)]:
        copy_run(root, trained_run, run_id)
        if ownership is not None:
            plain.set_ownership(run_id, ownership)
    return plain


def ids(store: RunStore) -> set[str]:
    return {run.run_id for run in store.list()}


def test_the_owner_file_stays_outside_the_signature(store):
    run = store.read("bob-shared")
    assert run.ownership == Ownership("bob", shared=True)
    assert json.loads((run.path / OWNER_FILE).read_text()) == {"owner": "bob", "shared": True}
    assert verify_folder(run.path) is None  # still vouched for: sharing never re-signs a run
    assert store.read("cli-run").ownership == Ownership()  # no file: the server's local user's
    assert not store.broken()


def test_a_student_sees_their_runs_the_class_s_and_the_shared_ones(store):
    assert ids(SessionStore(ADA, store.root)) == {"ada-run", "bob-shared", "cli-run"}
    assert ids(SessionStore(BOB, store.root)) == {"bob-run", "bob-shared", "cli-run"}
    assert ids(SessionStore(Viewer("eve", teacher=True), store.root)) == ids(store)  # the teacher sees every run


def test_only_the_owner_or_the_teacher_renames_deletes_or_shares(store):
    ada = SessionStore(ADA, store.root)
    for change in (lambda: ada.rename("bob-shared", "mine now"), lambda: ada.delete("bob-shared"),
                   lambda: ada.share("bob-shared", False), lambda: ada.delete("cli-run")):
        with pytest.raises(ValueError, match="only its owner or the teacher"):
            change()
    assert store.read("bob-shared").name is None and store.read("bob-shared").ownership.shared
    assert ada.refusal("ada-run") is None
    ada.rename("ada-run", "my lstm")
    assert store.read("ada-run").name == "my lstm"

    teacher = SessionStore(Viewer("eve", teacher=True), store.root)
    teacher.share("bob-run", True)
    assert "bob-run" in ids(ada)  # shared: every session sees it
    teacher.delete("cli-run")
    assert "cli-run" not in ids(store)


def test_sharing_shows_a_run_to_the_class_and_unsharing_hides_it(store):
    ada, bob = SessionStore(ADA, store.root), SessionStore(BOB, store.root)
    ada.share("ada-run", True)
    assert "ada-run" in ids(bob)
    ada.share("ada-run", False)
    assert "ada-run" not in ids(bob)
    with pytest.raises(ValueError, match="belongs to the server"):
        SessionStore(Viewer("eve", teacher=True), store.root).share("cli-run", True)


def test_a_run_a_session_writes_is_its_own(store, trained_run):
    def fill(folder):  # an imported run zip's files, say
        for item in trained_run.path.iterdir():
            if item.name != "manifest.json":
                (shutil.copytree if item.is_dir() else shutil.copyfile)(item, folder / item.name)

    SessionStore(BOB, store.root).write("added", fill)
    assert store.read("added").ownership == Ownership("bob")
    assert "added" not in ids(SessionStore(ADA, store.root))


def test_a_damaged_owner_file_breaks_the_run_and_only_the_teacher_sees_it(store):
    (store.root / "bob-run" / OWNER_FILE).write_text('{"owner": "bob", "shared": "yes"}')
    assert "bob-run" in store.broken() and "owner.json" in store.broken()["bob-run"]
    assert "bob-run" not in SessionStore(BOB, store.root).broken()
    assert "bob-run" in SessionStore(Viewer("eve", teacher=True), store.root).broken()
    assert SessionStore(BOB, store.root).refusal("bob-run").startswith("Only the teacher")


@pytest.mark.parametrize("owner", ["", "   ", "x" * 41, "bob\nalice", "a/b", 7])
def test_a_bad_owner_is_refused(owner):
    with pytest.raises(ValueError, match="owner"):
        check_owner(owner)


def test_a_job_s_run_is_its_owner_s_from_the_moment_it_lands(tmp_path, monkeypatch):
    """The owner is written into the run's folder before it lands in the store (a job for a session), so no
    other session ever lists it as the server's; a lesson's job (no owner) writes none."""
    import seqlab.runs

    at_landing = {}

    def signed(folder, imported=None):  # the last step of a run's write, just before its folder lands
        at_landing[folder.name] = read_ownership(folder)
        return write_manifest(folder, imported)

    monkeypatch.setattr(seqlab.runs, "write_manifest", signed)
    manager = JobManager(RunStore(tmp_path / "runs"))
    spec = ExperimentSpec("sine", "mlp", model_options={"units": 8, "layers": 1}, epochs=1, batch_size=128)
    owned = manager.wait(manager.submit(spec, owner="ada"), timeout=120)
    unowned = manager.wait(manager.submit(spec), timeout=120)
    assert owned.status == unowned.status == "completed"
    assert at_landing == {owned.run.run_id: Ownership("ada"), unowned.run.run_id: Ownership()}
    assert owned.run.ownership == manager.store.read(owned.run.run_id).ownership == Ownership("ada")
    assert verify_folder(owned.run.path) is None  # owner.json stays outside the signature


def test_the_teacher_s_switches_are_written_atomically_in_the_store(tmp_path):
    root = tmp_path / "runs"
    assert read_classroom(root) == Classroom()  # none written yet: all off
    write_classroom(root, Classroom("lstm-gates", hide_notice=True))
    assert read_classroom(root) == Classroom("lstm-gates", hide_notice=True)
    assert sorted(p.name for p in root.iterdir()) == [CLASSROOM_FILE, STORE_MARK]  # no temporary file left
    assert RunStore(root).list() == [] and RunStore(root).broken() == {}  # hidden from the listing
    (root / CLASSROOM_FILE).write_text('{"lesson": 3}')
    with pytest.raises(ValueError, match="teacher's switches"):
        read_classroom(root)


def test_the_teacher_key_comes_from_the_environment_over_the_config_file(tmp_path, monkeypatch):
    assert teacher_key() is None
    config = tmp_path / "seqlab.toml"
    config.write_text('[limits]\nmax_epochs = 5\n[classroom]\nteacher_key = " owl "\n')
    monkeypatch.setenv(CONFIG_ENV, str(config))
    assert teacher_key() == "owl"
    monkeypatch.setenv(TEACHER_KEY_ENV, "lark")
    assert teacher_key() == "lark"
    monkeypatch.delenv(TEACHER_KEY_ENV)
    config.write_text('[classroom]\nteacher_key = ""\n')
    with pytest.raises(ValueError, match="teacher_key in \\[classroom\\].*non-empty text"):
        teacher_key()
    config.write_text('[classroom]\nteacher = "owl"\n')
    with pytest.raises(ValueError, match="Unknown key"):
        teacher_key()
