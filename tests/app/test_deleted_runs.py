"""After a run is deleted on Models, no page shows it: the Train and Lessons result panels included."""

import shutil

from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec
from seqlab.training.jobs import Job, JobManager
from seqlab.training.presets import PRESETS
from tests.app.conftest import MANAGER_KEY, texts


def finished_jobs(runs_dir, run, names):
    """One finished job per name, each holding its own copy of ``run`` in the store."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for name in names:
        shutil.copytree(run.path, runs_dir / name)
        jobs.append(Job(ExperimentSpec("sine", "mlp"), status="completed", run=RunStore(runs_dir).read(name)))
    return jobs


def test_result_panels_forget_a_deleted_run(open_page, runs_dir, trained_run):
    kept, doomed = "20260101-000000-sine-mlp-kept", "20260101-000000-sine-mlp-gone"
    jobs = finished_jobs(runs_dir, trained_run, [kept, doomed])
    manager = JobManager(RunStore(runs_dir))
    manager.jobs.extend(jobs)
    lesson = next(iter(PRESETS.values()))  # the Lessons page opens on the first one

    at = open_page("pages/train.py")
    at.session_state[MANAGER_KEY] = manager
    at.session_state[f"seqlab.lesson.{lesson.name}"] = [job.job_id for job in jobs]
    at.selectbox(key="train.dataset").set_value("sine").run()  # the form asks for what the jobs trained
    at.selectbox(key="train.model.forecast").set_value("mlp").run()
    assert f"Saved as run `{doomed}`" in texts(at.success)  # the last finished job

    at.switch_page("pages/models.py").run()
    at.selectbox(key="models.run").set_value(doomed).run()
    at.button(key=f"models.delete.{doomed}").click().run()
    at.button(key=f"models.delete_yes.{doomed}").click().run()
    assert not at.exception and not (runs_dir / doomed).exists()
    assert not any(doomed in option for option in at.selectbox(key="models.run").options)
    assert doomed not in at.dataframe[0].value["run"].tolist()

    at.switch_page("pages/train.py").run()
    assert not at.exception and not at.error
    assert f"Run `{doomed}` was deleted." in texts(at.info)
    assert not at.success and not at.get("plotly_chart") and not at.metric

    at.switch_page("pages/lessons.py").run()
    assert not at.exception and not at.error
    assert f"run `{doomed}` was deleted" in texts(at.info)
    table = next(frame.value for frame in at.dataframe if "run" in frame.value.columns)
    assert table["run"].tolist() == [kept]
