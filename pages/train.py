"""Train: dataset -> fitting architecture -> hyper-parameters -> Train; live curves; the result."""

import streamlit as st

from seqlab.app import (  # noqa: F401  the uploads and views register
    cache, csv_upload, live, masked_lm_view, pairs_upload, pairs_view, results, state, text_classes_view,
    text_csv_upload,
)
from seqlab.app.entry import require_entry
from seqlab.app.task_views import is_series
from seqlab.app.uploads import upload_for
from seqlab.app.widgets import (
    architecture_picker,
    dataset_picker,
    main_data_options,
    option_grid,
    option_input,
    tbptt_inputs,
    training_inputs,
)
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
    st.caption(arch.description)

    upload = upload_for(info)
    with st.container(border=True):
        main = main_data_options(info.defaults)
        st.markdown("**Data**" + (" (windows in time steps)" if is_series(info.task) else ""))
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
    with st.container(border=True):
        st.markdown(f"**Model: {arch.title}**")
        model_options = option_grid(
            arch.defaults, f"train.arch.{arch.name}", columns=3, choices=arch.choices, ranges=arch.ranges
        )
    with st.container(border=True):
        st.markdown("**Training**")
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
    problem, facts = None, None
    try:
        resolved = spec.resolved()
        facts = cache.dataset_facts(info.name, resolved.data_options)
    except (ValueError, RuntimeError) as err:
        problem = str(err)
    if problem:
        st.error(f"This setting cannot be trained: {problem}")
    else:
        st.caption(live.describe_task(facts, resolved))
        for note in facts["notes"]:
            st.info(note, icon=":material/info:")
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
    with st.expander("Experiment spec (JSON): reproduce this run"):
        st.json(spec.to_dict(), expanded=True)
        st.caption("`python -m seqlab train` takes the same settings; the run folder keeps this spec.")

if clicked:
    job = state.submit(spec)
    if job is not None:
        st.toast(f"{live.job_title(job)} {'queued' if busy else 'started'}.", icon=":material/rocket_launch:")
        st.rerun()  # redraw the sidebar and this page with the new job

with view:
    running = live.show_active_job()
    finished = state.last_finished()
    if finished is not None:
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
