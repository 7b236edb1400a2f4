"""A lesson in the dashboard: a preset's runs queued together and compared as they train, then looked inside.

The runs go through this session's JobManager like any other job (one at a
time, Cancel works, page switches do not stop them); this module only reads
their events and finished runs. A lesson's runs are served, not trained again:
one trained before with the same settings, seed, data and code shows at once in
every session that opens the lesson, and one training now in another session is
followed (``JobManager.submit`` with ``reuse``); **Run again** retrains on
purpose. The Lessons page (``pages/lessons.py``) shows one
``seqlab.lessons.Lesson`` at a time through ``show_lesson``, as the teacher's
switches (``seqlab.app.lessons.teacher_menu``) let it.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from seqlab.app import figures, projector_style, run_table, state
from seqlab.app.live import POLL_SECONDS, diverged_text, loss_scale_of, progress_text
from seqlab.app.lessons.lesson_views import LESSON_VIEWS, measured_notice
from seqlab.app.lessons.teacher_menu import HIDDEN, LESSON_KEY, Teacher, follow_pick
from seqlab.app.results import model_title
from seqlab.app.widgets import KEPT
from seqlab.layers.docs import equations
from seqlab.lessons import LESSONS, Lesson
from seqlab.models import get_architecture
from seqlab.plots import batch_loss_curves, validation_curves
from seqlab.run_name import read_name
from seqlab.runs import Run
from seqlab.training.jobs import Job
from seqlab.training.presets import PRESETS, Preset
from seqlab.training.spec import ExperimentSpec
from seqlab.wording import counted

JOBS_KEY = "seqlab.lesson.{name}"


def training_text(spec: ExperimentSpec) -> str:
    """How a run trains, as it will: one closed-form fit (whatever ``epochs`` says), or its budget."""
    if get_architecture(spec.model).fit is not None:
        return "one closed-form fit"
    budget = (f"{counted(spec.steps, 'step')}, {counted(spec.epochs, 'validation')}" if spec.steps
              else counted(spec.epochs, "epoch"))
    return budget + (f", early stop after {spec.early_stopping}" if spec.early_stopping else "")


def plan_table(preset: Preset) -> pd.DataFrame:
    """What the lesson trains: one row per run, with the settings that differ from the defaults."""
    rows = []
    for spec, extra in zip(preset.specs, preset.differences()):
        options = {**spec.data_options, **spec.model_options}
        rows.append({
            "model": f"{model_title(spec.model)}{f' · {extra}' if extra else ''}",  # what sets two of a model apart
            "dataset": spec.dataset,
            "training": training_text(spec),
            "settings": ", ".join(f"{k}={v}" for k, v in options.items()),
        })
    return pd.DataFrame(rows)


def show_plan(preset: Preset) -> None:
    if projector_style.projector_on():  # a canvas table cuts a long option list at its cell's edge; this one wraps
        st.table(plan_table(preset), hide_index=True)
        return
    st.dataframe(plan_table(preset), hide_index=True, width="stretch",
                 column_config={"settings": st.column_config.TextColumn(width="large")})  # long option lists


def start(preset: Preset, retrain: bool = False) -> None:
    """Queue the preset's runs; one trained before, or training now in another session, is served instead (unless
    ``retrain``): the same settings, seed, data and code would only repeat it (``seqlab.training.identity``)."""
    jobs = [state.submit(spec, name, reuse=not retrain, lesson=True)  # the class's runs, whoever pressed Run
            for spec, name in zip(preset.specs, preset.run_names())]
    st.session_state[JOBS_KEY.format(name=preset.name)] = [j.job_id for j in jobs if j is not None]


def served_jobs(preset: Preset) -> list[Job]:
    """The preset's runs as earlier sessions left them, each finished in the store or training now in another
    session, followed by this one: all of them, or none (then **Run this lesson** trains what is missing)."""
    manager = state.manager()
    try:
        jobs = [manager.served(spec) for spec in preset.specs]
    except (ValueError, RuntimeError, OSError):  # a spec or its data refused: pressing Run this lesson says why
        return []
    return [manager.follow(job) for job in jobs] if all(job is not None for job in jobs) else []


def jobs_of(preset: Preset, serve: bool = False) -> list[Job]:
    """This session's jobs of the preset; with ``serve``, while it has none, the ``served_jobs`` (a reload, a fresh
    browser or the teacher's link shows the runs at once)."""
    key = JOBS_KEY.format(name=preset.name)
    if serve and key not in st.session_state:
        served = served_jobs(preset)
        if served:
            st.session_state[key] = [job.job_id for job in served]
    ids = st.session_state.get(key, [])
    return [job for job in map(state.find_job, ids) if job is not None]


def trained_text(jobs: list[Job]) -> str | None:
    """When the served runs among ``jobs`` were trained (``None``: none was served)."""
    times = sorted({job.run.meta.created[:16].replace("T", " ") for job in jobs if job.reused})
    if not times:
        return None
    return (f"Trained {' and '.join(times)} UTC with the same settings, seed, data and code: shown from the run "
            "store, not trained again. **Run again** trains them anew.")


def job_label(job: Job, jobs: list[Job]) -> str:
    """The model's title; beside a run of the same model, also the options in which they differ."""
    twins = [{**j.spec.data_options, **j.spec.model_options} for j in jobs if j.spec.model == job.spec.model]
    label = run_table.model_label(job.spec.model, {**job.spec.data_options, **job.spec.model_options}, twins)
    return f"{label} (job {job.job_id})"


def curves_figure(jobs: list[Job]):
    """The validation losses per epoch. No baseline line: the baselines are scored on the test
    split only, and a test level drawn over validation curves would compare unlike things."""
    curves = {}
    for job in jobs:
        epochs = [e for e in job.events_since(0) if e["type"] == "epoch" and "val_loss" in e]
        curves[job_label(job, jobs)] = (
            [e["epoch"] for e in epochs], [e["val_loss"] for e in epochs]
        )
    scale = loss_scale_of(jobs[0])
    return validation_curves(
        {label: (epochs, scale.values(losses)) for label, (epochs, losses) in curves.items()},
        y_title=scale.title,
        log_y=scale.log_y,
        total_epochs=max(job.spec.epochs for job in jobs),
    )


def live_figure(jobs: list[Job], events: list[list[dict]]):
    """Each run's training loss per batch and validation loss per epoch as it trains (``events``: each job's),
    overlaid: the Train page's live curve for every run of the lesson."""
    runs = {}
    for job, seen in zip(jobs, events):
        start = next((e for e in seen if e["type"] == "start"), {})
        runs[job_label(job, jobs)] = ([e for e in seen if e["type"] == "batch"],
                                      [e for e in seen if e["type"] == "epoch"], start.get("steps_per_epoch"))
    return batch_loss_curves(runs, loss_scale_of(jobs[0]), total_epochs=max(job.spec.epochs for job in jobs))


def progress_panel(preset_name: str, job_ids: list[int]) -> None:
    """Fragment body: one progress bar per run and their overlaid losses per batch; until a first batch, what the
    first unfinished run is doing (its place in line) where the chart will be."""
    jobs = [job for job in map(state.find_job, job_ids) if job is not None]
    if all(job.done for job in jobs):
        st.rerun()  # one full rerun: the page now shows the comparison
    for job in jobs:
        fraction, text = (1.0, job.status) if job.done else progress_text(job)
        st.progress(fraction, text=f"**{job_label(job, jobs)}**: {text}")
    events = [job.events_since(0) for job in jobs]
    if not any(e["type"] == "batch" for seen in events for e in seen):  # an empty chart would say nothing
        waiting = next(job for job in jobs if not job.done)
        st.info(f"**{job_label(waiting, jobs)}**: {progress_text(waiting)[1]}", icon=":material/hourglass_top:")
        return
    figures.show(live_figure(jobs, events), key=f"lesson.curves.{preset_name}", downloads=False)  # redrawn live


def show_progress(preset: Preset, jobs: list[Job]) -> None:
    st.fragment(progress_panel, run_every=POLL_SECONDS)(preset.name, [job.job_id for job in jobs])


def named_now(run: Run) -> Run:
    """The run under its name as it is now: it may have been renamed on Models since it finished."""
    try:
        return replace(run, name=read_name(run.path))
    except ValueError:  # a damaged name file: Models lists the run as broken and says why
        return run


def show_results(jobs: list[Job], key: str = "lesson") -> None:
    """The overlaid curves, then each finished run against its best baseline (as on Models)."""
    figures.show(curves_figure(jobs), key=f"{key}.curves.final")
    for job in jobs:
        if job.run is None:
            st.error(f"{model_title(job.spec.model)}: {job.error or 'cancelled before it started'}")
        elif not job.run.exists():
            st.info(f"{model_title(job.spec.model)}: run `{job.run.run_id}` was deleted.")
        elif job.run.status == "diverged":
            st.warning(f"{model_title(job.spec.model)}: {diverged_text(job.run)}", icon=":material/warning:")
    table = run_table.runs_table([named_now(job.run) for job in jobs if job.run is not None and job.run.exists()])
    if not len(table):
        return
    # The names when they tell the runs apart (the preset named each by what sets it apart), or one was renamed.
    given = {job.name or "" for job in jobs}
    named = ["name"] if table["name"].nunique() > 1 or not set(table["name"]) <= given else []
    projector_style.show_table(table, ["label", *named, "status", "epochs", "metric", "test", "best baseline",
                                       "skill", "train s", "run"], run_table.RUN_COLUMNS)
    if table["metric"].nunique() == 1:
        metric = table["metric"].iloc[0]
        figures.show(run_table.comparison_figure(table, title=f"Test {metric} per run"), key=f"{key}.compare")


# ---------------------------------------------------------------- the Lessons page: one lesson per topic


def topic_label(name: str) -> str:
    """``3. Elman RNN and vanishing gradients``: the lecture's topic, numbered in its order."""
    return f"{LESSONS.names().index(name) + 1}. {LESSONS.get(name).topic}"


def pick_lesson(where: DeltaGenerator, teacher: Teacher) -> Lesson:
    """The topic picker, bound to the link (``lessons.lesson``), in the lecture's order; none for a student whom
    the server's lock holds to one lesson, whatever the link says."""
    if teacher.lesson is not None:
        return LESSONS.get(teacher.lesson)
    with where:
        name = st.selectbox("Topic of the lecture", LESSONS.names(), format_func=topic_label, key=LESSON_KEY,
                            on_change=follow_pick, **KEPT)
    return LESSONS.get(name)


def layer_class(path: str) -> type:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def show_equations(lesson: Lesson) -> None:
    """Each layer's ``Equations:`` from its docstring (``seqlab.layers.docs``): the code that trains."""
    for path in lesson.layers:
        st.markdown(f"**{path.rpartition('.')[2]}** · from the docstring of `{path}`")
        for block in equations(layer_class(path)):
            st.latex(block)


def finished_runs(jobs: list[Job]) -> list[Run]:
    """The lesson's runs that finished and are still saved, in the preset's order."""
    return [job.run for job in jobs if job.run is not None and job.run.exists() and job.run.status == "completed"]


def show_view(lesson: Lesson, runs: list[Run]) -> None:
    if not runs:
        st.info("No run of this lesson finished: run it again to see inside.")
        return
    LESSON_VIEWS.get(lesson.view)(runs, f"lessons.view.{lesson.name}")


def run_button(preset: Preset, running: bool, key: str, seconds: float | None = None, again: bool = False) -> None:
    """Queue the preset's runs (``again``: **Run again**, trained anew on purpose); beside the button, the measured
    time it takes."""
    button, cost = st.columns([1, 3], vertical_alignment="center")
    label, help_text = (
        ("Run again", "Trains every run of the lesson anew, even those trained before.") if again else
        ("Run this lesson", "Queues every run of the lesson; they train one at a time in the background. A run "
         "trained before with the same settings, seed, data and code is shown at once instead.")
    )
    if button.button(label, key=key, type="primary", icon=":material/play_arrow:", disabled=running,
                     help=help_text):
        start(preset, retrain=again)
        st.rerun()  # redraw with the button disabled and the live panel
    runs = counted(len(preset.specs), "run")
    if seconds:
        cost.caption(f"{runs}, about {seconds:.0f} s on 2 CPU cores (measured, SavedModel export included). "
                     f"From a terminal: `python -m seqlab train --preset {preset.name}`")
    else:
        cost.caption(f"{runs}. From a terminal: `python -m seqlab train --preset {preset.name}`")


def show_runs(preset: Preset, key: str, seconds: float | None = None, serve: bool = False) -> list[Run] | None:
    """Run button, live progress, then the comparison; the finished runs (``None`` until they all finish).
    ``serve``: shown at once when they were trained before (``jobs_of``)."""
    jobs = jobs_of(preset, serve)
    running = any(not job.done for job in jobs)
    run_button(preset, running, key, seconds, again=bool(jobs))
    if not jobs:
        st.info("Press **Run this lesson**: the runs train in the background and their curves draw here live.")
        return None
    if running:
        with st.container(border=True):
            show_progress(preset, jobs)
        return None
    st.subheader("Result")
    if served := trained_text(jobs):
        st.caption(served)
    show_results(jobs, key=key)
    return finished_runs(jobs)


def show_lesson(lesson: Lesson, teacher: Teacher) -> None:
    """One lesson: the idea, its equations, what it trains, the runs, the view inside them, what to notice."""
    st.header(lesson.topic)
    st.markdown(lesson.text)
    st.subheader("Equations")
    if teacher.hide_equations:
        st.caption(HIDDEN)
    else:
        show_equations(lesson)
    st.subheader("The runs")
    if not teacher.hide_plan:
        show_plan(lesson.preset)
    runs = show_runs(lesson.preset, "lessons.run", lesson.seconds, serve=True)
    if runs is not None:
        st.subheader("Inside the runs")
        show_view(lesson, runs)
    st.subheader("What to notice")
    if teacher.hide_notice:
        st.caption(HIDDEN)
    else:
        st.markdown(lesson.notice)
        if lesson.claims and runs:  # the figures are measured on the finished runs, never typed
            st.markdown(measured_notice(lesson, runs))
        elif lesson.claims:
            st.caption("Run the lesson: what its runs show is measured on them and written here.")


def longer_experiments() -> None:
    """The presets that take several minutes, in an expander below the lessons."""
    longer = list(PRESETS.values())
    with st.expander("Longer experiments (several minutes each)", icon=":material/hourglass:"):
        preset = st.selectbox("Experiment", longer, format_func=lambda p: p.title, key="lessons.preset")
        st.markdown(preset.description)
        show_plan(preset)
        if show_runs(preset, "lessons.longer.run") is not None:
            st.page_link("pages/inspect.py", label="Look inside these runs on Inspect", icon=":material/biotech:")
