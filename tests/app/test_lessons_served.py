"""Lessons are served, not re-trained: a session that opens a lesson trained before (a reload, a fresh browser, the
teacher's link) shows its runs at once with when they were trained; Run again retrains; two sessions that start one
lesson at once train it once."""

from seqlab.runs import RunStore
from seqlab.training import run_experiment
from tests.app.conftest import all_done, jobs, run_until, texts
from tests.app.test_lessons_page import tiny_lesson  # noqa: F401  the fixture: a lesson of two tiny runs


def open_lesson(open_page, name):
    at = open_page("pages/lessons.py")
    at.selectbox(key="lessons.lesson").set_value(name).run()
    return at


def test_a_fresh_session_shows_the_runs_trained_before_at_once_and_run_again_retrains(open_page, tiny_lesson,
                                                                                       runs_dir):
    store = RunStore(runs_dir)
    preset = tiny_lesson.preset
    trained = [run_experiment(spec, store=store, name=name, savedmodel=False) for spec, name in zip(preset.specs,
                                                                                                    preset.run_names())]
    at = open_lesson(open_page, "tiny")  # a reload, a fresh browser or the teacher's link: a new session
    assert not at.exception and not at.error
    assert [job.reused and job.done for job in jobs(at)] == [True, True]  # nothing trains
    assert at.dataframe[1].value["run"].tolist() == [run.run_id for run in trained]
    when = trained[0].meta.created[:16].replace("T", " ")
    assert f"Trained {when}" in texts(at.caption) and "Inside the runs" in texts(at.subheader)
    assert at.button(key="lessons.run").label == "Run again"
    assert len(store.list()) == 2

    at.button(key="lessons.run").click().run()  # on purpose
    fresh = [job for job in jobs(at) if not job.reused]
    assert len(fresh) == 2
    run_until(at, all_done).run()
    assert len(store.list()) == 4
    assert at.dataframe[1].value["run"].tolist() == [job.run.run_id for job in fresh]
    assert "Trained " not in texts(at.caption)


def test_two_sessions_that_start_a_lesson_at_once_train_it_once(open_page, tiny_lesson, runs_dir):
    teacher = open_lesson(open_page, "tiny")
    assert teacher.button(key="lessons.run").label == "Run this lesson"
    teacher.button(key="lessons.run").click().run()
    student = open_lesson(open_page, "tiny")  # opened while the teacher's runs train
    assert not student.exception
    assert all(mine is theirs for mine, theirs in zip(jobs(student), jobs(teacher), strict=True))  # followed
    run_until(student, all_done).run()
    assert "Result" in texts(student.subheader) and len(student.dataframe[1].value) == 2
    assert len(RunStore(runs_dir).list()) == 2  # trained once
