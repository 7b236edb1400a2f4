"""Train: dataset -> fitting architecture -> hyper-parameters -> Train; live curves; the result."""

import streamlit as st

from seqlab.app import cache, live, results, state
from seqlab.app.entry import require_entry
from seqlab.app.estimate import training_time
from seqlab.app.task_views import is_series
from seqlab.app.uploads.upload import upload_for
from seqlab.app.widgets import (
    architecture_picker,
    dataset_picker,
    main_data_options,
    option_grid,
    option_input,
    tbptt_inputs,
    training_inputs,
)
from seqlab.run_name import MAX_LENGTH
from seqlab.training import ExperimentSpec

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Train")
st.caption(
    "Pick a dataset and an architecture that fits its task, set the hyper-parameters, press Train. "
    f"Training runs in the background on {cache.device()}: change pages freely, it goes on."
)

settings, view = st.columns([2, 3], gap="large")

with settings:
    info = dataset_picker(key="train.dataset")
    arch = architecture_picker(info.task, key=f"train.model.{info.task}", kinds=info.kinds)
    # The button and the job's cost sit right under the pickers, beside the live chart; they are
    # filled once the options in the tabs below are read.
    launch = st.container()
    upload = upload_for(info)
    data_tab, model_tab, training_tab = st.tabs(["Data", "Model", "Training"], key="train.tab", bind="query-params")
    with data_tab:
        main = main_data_options(info.defaults)
        if is_series(info.task):
            st.caption("Windows in time steps.")
        data_options = option_grid(
            info.defaults, f"train.data.{info.name}", main, columns=3, choices=info.choices, ranges=info.ranges
        )
        with st.expander("More data options"):
            # A dataset's file options come from the upload below, not from text boxes.
            others = [k for k in info.defaults if k not in main and k not in (upload.options if upload else ())]
            data_options.update(
                option_grid(info.defaults, f"train.data.{info.name}", others, choices=info.choices, ranges=info.ranges)
            )
        if upload is not None:
            data_options.update(upload.widget(f"train.upload.{info.name}", data_options) or {})
    with model_tab:
        st.caption(arch.description)
        model_options = option_grid(
            arch.defaults, f"train.arch.{arch.name}", columns=3, choices=arch.choices, ranges=arch.ranges,
            labels=arch.labels,
        )
    with training_tab:
        if arch.fit is None:
            training = training_inputs("train.fit")
            if is_series(info.task):  # truncated BPTT runs along one series
                training["tbptt"] = tbptt_inputs("train.fit", int(data_options.get("lookback", 50)))
        else:
            st.caption(
                f"{arch.title} is fitted in closed form in one step: epochs, batch size, optimizer and "
                "gradient clipping do not apply."
            )
            training = {"seed": option_input("seed", 0, "train.fit.seed")}

    spec = ExperimentSpec(info.name, arch.name, data_options, model_options, **training)
    with st.expander("Experiment spec (JSON): reproduce this run"):
        st.json(spec.to_dict(), expanded=True)
        st.caption("`python -m seqlab train` takes the same settings; the run folder keeps this spec.")

with launch:
    problem, facts, weights = None, None, None
    try:
        resolved = spec.resolved()
        facts = cache.dataset_facts(info.name, resolved.data_options)
        weights = cache.parameters(info.name, resolved.data_options, arch.name, resolved.model_options)
        state.store().check_writable()  # a store no run could be written to: said now, not after training
    except (ValueError, RuntimeError) as err:
        problem = str(err)
    busy = state.manager().active() is not None
    clicked = st.button(
        "Queue training" if busy else "Train",
        type="primary",
        icon=":material/play_arrow:",
        disabled=problem is not None,
        width="stretch",
        key="train.submit",
        help="Your job is running or waiting: this one starts when it ends." if busy else None,
    )
    name = st.text_input(
        "Run name (optional)", key="train.name", max_chars=MAX_LENGTH, placeholder="e.g. lstm 64 units, lr 1e-3",
        help="Your label for the run, shown wherever runs are listed or picked; rename it later on Models.",
    )
    if problem:
        st.error(f"This setting cannot be trained: {problem}")
    else:
        st.caption(live.cost_text(weights, training_time(state.store().scan()[0], resolved, facts["windows"]["train"])))
        st.caption(live.describe_task(facts, resolved))
        for note in facts["notes"]:
            st.info(note, icon=":material/info:")

if clicked:
    job = state.submit(spec, name)
    if job is not None:
        st.toast(f"{live.job_title(job)} {'queued' if busy else 'started'}.", icon=":material/rocket_launch:")
        st.rerun()  # redraw the sidebar and this page with the new job


def _form_unchanged(trained: ExperimentSpec) -> bool:
    """Whether the form still asks for what ``trained`` trained (defaults filled in on both sides)."""
    try:
        return trained == spec or trained.resolved() == spec.resolved()
    except ValueError:  # the form's setting cannot be trained: it is not the trained one
        return False


with view:
    running = live.show_active_job()
    finished = state.last_finished()
    if finished is not None and not running and not _form_unchanged(finished.spec):
        # The form has moved on: that result belongs to other settings, so it is only named here.
        st.info(
            f"Your last result, {live.job_title(finished)}, was trained with other settings: press "
            "**Train** for these, or open it on **Models**.", icon=":material/history:",
        )
        st.page_link("pages/models.py", label="Open it on Models", icon=":material/inventory_2:")
    elif finished is not None:
        st.subheader(("Last result: " if running else "Result: ") + live.job_title(finished))
        if finished.status == "failed":
            st.error(f"Training failed: {finished.error}")
        elif finished.run is None:
            st.warning("The job was cancelled before it started.")
        elif not finished.run.exists():
            st.info(f"Run `{finished.run.run_id}` was deleted.", icon=":material/delete:")
        else:
            run = finished.run
            if run.status == "cancelled":
                st.warning(
                    f"Cancelled after {run.meta.epochs_run} epoch(s); saved as run `{run.run_id}` "
                    "with the weights it had, and evaluated like any other.",
                    icon=":material/stop_circle:",
                )
            elif run.status == "diverged":
                st.warning(live.diverged_text(run), icon=":material/warning:")
            else:
                st.success(f"Saved as run `{run.run_id}`.", icon=":material/check_circle:")
            results.headline(run)
            st.markdown("**Test metrics against the baselines**")
            results.metrics_block(run)
            results.predictions_view(run, key=f"train.result.{run.run_id}")
            results.history_view(run, key=f"train.result.{run.run_id}")
            st.page_link("pages/models.py", label="Inspect, export or serve it on Models", icon=":material/inventory_2:")
    elif not running:
        with st.container(border=True):
            st.markdown("#### Nothing trained yet in this session")
            st.markdown(
                "Choose the settings on the left and press **Train**. Here you will see the progress "
                "with an ETA, the loss per batch and per epoch (train and validation) as it learns, "
                "and when it finishes: the test metrics next to simple baselines and the model's "
                "predictions against the truth."
            )
            st.caption(
                "For a one-minute lesson: energy, LSTM, a few epochs; compare its test MAE with the "
                "seasonal-naive baseline's. For several models on one chart, open **Lessons**."
            )
