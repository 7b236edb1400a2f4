"""Runs belong to someone, and the teacher's lock is the server's: a session sees its own runs, the class's and the
shared ones; only the owner or the teacher changes a run; the teacher's key unlocks the Teacher menu, whose switches
hold for every student whatever their link says. Without a key, every session is the teacher, as before."""

import pytest
from streamlit.testing.v1 import AppTest

from seqlab.classroom import Classroom, read_classroom
from seqlab.lessons import LESSONS
from seqlab.limits import TEACHER_KEY_ENV
from seqlab.run_owner import Ownership
from seqlab.runs import RunStore
from seqlab.training.executors import LocalExecutor
from tests.app.conftest import APP, all_done, jobs, run_until, texts
from tests.cli_store import copy_run

KEY = "owl at noon"
RUNS = {"teacher-run": Ownership("teach", shared=True), "ada-run": Ownership("ada"), "bob-run": Ownership("bob"),
        "cli-run": None}


@pytest.fixture
def class_runs(runs_dir, trained_run):
    """The teacher's shared run, ada's and bob's own runs, and a run trained from the command line (no owner)."""
    store = RunStore(runs_dir)
    for run_id, ownership in RUNS.items():
        copy_run(runs_dir, trained_run, run_id)
        if ownership is not None:
            store.set_ownership(run_id, ownership)
    return store


@pytest.fixture
def teacher_key(monkeypatch):
    monkeypatch.setenv(TEACHER_KEY_ENV, KEY)


def as_owner(at, name: str):
    at.text_input(key="owner").input(name).run()  # typed once in the sidebar
    return at


def listed(at) -> set[str]:
    return set(at.dataframe[0].value["run"])


def switches(at) -> list[str]:
    """The page's switches, not the sidebar's (projector mode)."""
    return [t.key for t in at.toggle if t.key != "projector"]


def enter_key(at, key: str):
    at.text_input(key="seqlab.teacher_key_box.text").input(key)
    at.button(key="seqlab.teacher_key_box.go").click().run()
    return at


def test_without_a_teacher_key_every_session_sees_and_changes_every_run(open_page, class_runs):
    at = open_page("pages/models.py")
    assert not at.exception
    assert listed(at) == set(RUNS)
    assert "owner" not in [box.key for box in at.text_input]  # no name box
    at.selectbox(key="models.run").set_value("ada-run").run()
    assert not at.button(key="models.delete.ada-run").disabled
    assert not at.text_input(key="models.name.ada-run").disabled
    assert not switches(at)  # nothing to share: every session sees every run
    at.text_input(key="models.name.ada-run").input("renamed by anyone")
    at.button(key="models.rename_go.ada-run").click().run()
    assert class_runs.read("ada-run").name == "renamed by anyone"


def test_a_student_sees_their_own_the_class_s_and_shared_runs_and_cannot_change_the_teacher_s(
        open_page, class_runs, teacher_key):
    bob = as_owner(open_page("pages/models.py"), "bob")
    assert not bob.exception
    assert listed(bob) == {"bob-run", "teacher-run", "cli-run"}  # not ada's
    bob.selectbox(key="models.run").set_value("bob-run").run()
    assert not bob.button(key="models.delete.bob-run").disabled  # his own
    assert not bob.toggle(key="models.share.bob-run").disabled
    bob.selectbox(key="models.run").set_value("teacher-run").run()
    assert bob.button(key="models.delete.teacher-run").disabled
    assert bob.text_input(key="models.name.teacher-run").disabled
    assert bob.button(key="models.rename_go.teacher-run").disabled
    assert bob.toggle(key="models.share.teacher-run").disabled
    assert "only its owner or the teacher" in texts(bob.caption)
    bob.selectbox(key="models.run").set_value("cli-run").run()
    assert bob.button(key="models.delete.cli-run").disabled  # the class's run: the teacher's to change
    assert {run.run_id for run in class_runs.list()} == set(RUNS)


def test_sharing_a_run_shows_it_to_the_class(open_page, class_runs, teacher_key):
    ada = as_owner(open_page("pages/models.py"), "ada")
    ada.selectbox(key="models.run").set_value("ada-run").run()
    ada.toggle(key="models.share.ada-run").set_value(True).run()
    assert not ada.exception
    assert class_runs.read("ada-run").ownership == Ownership("ada", shared=True)
    bob = AppTest.from_file(str(APP), default_timeout=120)
    bob.query_params["owner"] = "bob"  # his bookmarked link: the name is kept in it
    bob.switch_page("pages/models.py").run()
    assert bob.text_input(key="owner").value == "bob"
    assert "Your runs are **bob**'s; you are a student." in texts(bob.sidebar.caption)
    assert "ada-run" in listed(bob) and "bob-run" in listed(bob)
    bob.selectbox(key="models.run").set_value("ada-run").run()
    assert bob.button(key="models.delete.ada-run").disabled  # seen, not his to change


def test_the_teacher_menu_asks_for_the_key_and_the_right_one_makes_the_teacher(open_page, class_runs, teacher_key):
    at = open_page("pages/lessons.py")
    assert not at.exception
    assert not switches(at)  # a student's menu: the key, no switches
    enter_key(at, "owl at midnight")
    assert "That is not the teacher key." in texts(at.error)
    assert not switches(at)
    enter_key(at, KEY)
    assert not at.exception and not at.error
    assert switches(at) == [f"lessons.classroom.{name}" for name in
                                          ("lock", "hide_plan", "hide_equations", "hide_notice")]
    at.switch_page("pages/models.py").run()
    assert listed(at) == set(RUNS)  # the teacher sees every run
    at.selectbox(key="models.run").set_value("bob-run").run()
    assert not at.button(key="models.delete.bob-run").disabled
    at.button(key="models.delete.bob-run").click().run()
    at.button(key="models.delete_yes.bob-run").click().run()
    assert not at.exception and "bob-run" not in {run.run_id for run in class_runs.list()}


def test_a_student_s_link_cannot_undo_the_teacher_s_lock(open_page, runs_dir, teacher_key):
    teacher = enter_key(open_page("pages/lessons.py"), KEY)
    teacher.selectbox(key="lessons.lesson").set_value("lstm-gates").run()
    teacher.toggle(key="lessons.classroom.lock").set_value(True).run()
    teacher.toggle(key="lessons.classroom.hide_notice").set_value(True).run()
    assert read_classroom(runs_dir) == Classroom("lstm-gates", hide_notice=True)

    student = open_page("pages/lessons.py")
    student.query_params.update({"lessons.lesson": "1. " + LESSONS.get(LESSONS.names()[0]).topic,
                                 "lessons.teacher.lock": "false", "lessons.teacher.hide_notice": "false"})
    student.run()
    assert not student.exception
    lesson = LESSONS.get("lstm-gates")
    assert [h.value for h in student.header] == [lesson.topic]  # the locked lesson only
    assert not student.selectbox  # no topic picker, no longer experiments
    assert lesson.notice not in texts(student.markdown)

    teacher.selectbox(key="lessons.lesson").set_value("gru-gates").run()  # the lock follows the teacher's topic
    student.run()
    assert [h.value for h in student.header] == [LESSONS.get("gru-gates").topic]
    teacher.toggle(key="lessons.classroom.lock").set_value(False).run()
    student.run()
    assert student.selectbox(key="lessons.lesson")  # unlocked: the student picks again


def test_a_run_trained_by_a_session_is_its_owner_s(open_page, runs_dir, trained_run, teacher_key, monkeypatch):
    def train(self, job, store):  # trains nothing: a copy of a finished run, owned by the job's owner as trained
        run_id = store.new_run_id("sine", "mlp")
        copy_run(store.root, trained_run, run_id)
        store.set_ownership(run_id, Ownership(job.owner))
        return store.read(run_id)

    monkeypatch.setattr(LocalExecutor, "train", train)
    at = as_owner(open_page("pages/train.py"), "ada")
    at.selectbox(key="train.dataset").set_value("sine").run()
    at.selectbox(key="train.model.forecast").set_value("mlp").run()
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    run = jobs(at)[0].run
    assert RunStore(runs_dir).read(run.run_id).ownership == Ownership("ada")
    at.switch_page("pages/models.py").run()
    assert listed(at) == {run.run_id}
    assert "No trained runs yet" in texts(as_owner(open_page("pages/models.py"), "bob").markdown)  # ada's own
