"""Compare: chosen runs' curves on one chart, their metrics in one table, the best run of each architecture."""

import streamlit as st

from seqlab.app import compare_view, results, state
from seqlab.app.entry import require_entry

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Compare")
st.caption(
    "Pick runs to see their training curves overlaid, their test metric, size, training time and device side "
    "by side, and per dataset the best run of each architecture. Compare on one dataset and one budget."
)
runs, _ = state.store().scan()  # broken folders are listed, with the reason, on Models

if len(runs) < 2:
    with st.container(border=True):
        st.markdown("#### Train at least two runs to compare")
        st.markdown(
            f"There {'is one run' if runs else 'are no runs'} yet. Train a few on the **Train** page, for "
            "example an LSTM and a GPT on one corpus with the same epochs, and compare them here."
        )
        st.page_link("pages/train.py", label="Train a model", icon=":material/model_training:")
    st.stop()

by_id = {r.run_id: r for r in runs}
datasets = sorted({r.meta.dataset for r in runs})
tasks = sorted({r.meta.task for r in runs})
left, right = st.columns(2)
chosen_datasets = left.multiselect(
    "Datasets", datasets, default=[compare_view.latest_dataset(runs)], key="compare.datasets",
    placeholder="every dataset", help="Starts with the dataset of the newest run; clear it to list every run.",
)
chosen_tasks = right.multiselect("Tasks", tasks, key="compare.tasks", placeholder="every task")
offered = compare_view.filter_runs(runs, chosen_datasets, chosen_tasks)
# The filter in the key: a new filter starts again from all of its runs.
chosen = st.multiselect(
    "Runs", [r.run_id for r in offered], default=[r.run_id for r in offered],
    key=f"compare.runs.{'|'.join(chosen_datasets)}.{'|'.join(chosen_tasks)}",
    format_func=lambda i: results.run_label(by_id[i]),
)
picked = [by_id[i] for i in chosen]
if not picked:
    st.info("Pick at least one run above (or clear the filters to list every run).", icon=":material/checklist:")
else:
    if len({r.meta.dataset for r in picked}) > 1:
        st.warning("These runs are on different datasets: their losses and metrics may not compare (other data, "
                   "other units). Pick one dataset above for a fair comparison.", icon=":material/warning:")
    st.subheader("Training curves")
    compare_view.curves_section(picked, key="compare.curves")
    st.subheader("Runs, best first")
    compare_view.table_section(compare_view.compare_table(picked), key="compare.table")
    st.caption(
        "Value: the task's main test metric; skill: how much better than the baseline named beside it, the "
        "strongest one every run on the dataset was scored against (each run's own best where they share none). "
        "Rows are ordered per dataset and metric by skill, best first."
    )

st.subheader("Leaderboard per dataset")
st.caption(
    "Every saved run: the best run of each architecture on each dataset. Pick a budget to compare families "
    "trained with the same epochs or steps; 'same budget as' names the other architectures trained alike."
)
compare_view.leaderboard_section(compare_view.compare_table(runs), key="compare.board")
