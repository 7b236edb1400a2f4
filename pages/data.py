"""Data: pick a dataset; its description, source and licence; a preview; summary statistics."""

import streamlit as st

from seqlab.app import cache, figures
from seqlab.app.entry import require_entry
from seqlab.app.format import steps_as_time
from seqlab.app.results import sample_frame
from seqlab.app.task_views import DATA_PREVIEWS, is_series, view_of
from seqlab.app.uploads.upload import upload_for
from seqlab.app.widgets import dataset_picker, main_data_options, option_grid
from seqlab.data.windowing import split_points
from seqlab.plots import dataset_preview, sample_preview
from seqlab.tasks import get_task

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Data")
st.caption(
    "Look at a dataset before modelling it. Every dataset ships with seqlab or its packages, except "
    "Shakespeare and the movie reviews (fetched once into your cache folder) and your own files (an upload)."
)

info = dataset_picker(key="data.dataset")
options = None  # the dataset's default options, as Train starts with
upload = upload_for(info)
if upload is not None:
    # A small file may need shorter windows than the defaults.
    with st.expander("Windows (lookback, horizon, …)", icon=":material/tune:"):
        options = option_grid(info.defaults, f"data.window.{info.name}", main_data_options(info.defaults),
                              columns=3, choices=info.choices, ranges=info.ranges)  # fmt: skip
    given = upload.widget(f"data.upload.{info.name}", options)
    if given is None:
        st.info(upload.prompt)
        st.stop()
    options.update(given)
try:
    data = cache.dataset(info.name, options)
except (ValueError, RuntimeError, OSError) as err:
    st.error(f"Cannot load {info.name!r}: {err}")
    st.stop()
frame = data.frame
series = is_series(data.task)  # one series cut into windows, else independent sequences
for note in data.notes:  # what loading changed or found: filled values, dropped rows, gaps
    st.info(note, icon=":material/info:")

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader(info.title)
    st.markdown(info.description)
with right:
    with st.container(border=True):
        st.markdown(f"**Source:** {info.source}")
        st.markdown(f"**Licence:** {info.licence}")
        inputs = ", ".join(data.features) if len(data.features) <= 4 else f"{len(data.features)} inputs"
        st.markdown(f"**Task:** {info.task}: predict **{data.target}** from {inputs}")

n = {k: len(data.splits[k]) for k in ("train", "val", "test")}
plain = dict(delta_color="off", delta_arrow="off", border=True)
c1, c2, c3, c4 = st.columns(4)
if series:
    c1.metric("Rows (time steps)", f"{len(frame):,}", steps_as_time(frame.index, len(frame)) or None, **plain)
    c2.metric("Lookback T", f"{data.lookback} step{'s' * (data.lookback != 1)}", steps_as_time(frame.index, data.lookback) or None, **plain)
    c3.metric("Horizon H", f"{data.horizon} step{'s' * (data.horizon != 1)}", steps_as_time(frame.index, data.horizon) or None, **plain)
    c4.metric("Training windows", f"{n['train']:,}", f"{n['val']:,} val · {n['test']:,} test", **plain,
              help=f"Windows cut with stride {data.options.get('stride', 1)}; the splits are chronological.")
else:
    c1.metric("Sequences", f"{sum(n.values()):,}", f"{n['train']:,} train", **plain,
              help=f"{n['train']:,} train · {n['val']:,} validation · {n['test']:,} test.")
    c2.metric("Steps per sequence T", f"{data.lookback}", **plain)
    if data.tokenizer is not None:  # one token per step, out of the vocabulary
        c3.metric("Vocabulary", f"{data.tokenizer.vocab_size:,}", f"{data.tokenizer.kind} tokens", **plain)
    else:
        c3.metric("Inputs per step", f"{len(data.features)}", **plain)
    if data.classes:
        c4.metric("Classes", f"{len(data.classes)}", ", ".join(data.classes[:6]) + ("…" if len(data.classes) > 6 else ""), **plain)
    else:
        c4.metric("Outputs per sequence", f"{data.horizon}", **plain)

preview = view_of(DATA_PREVIEWS, data.task, None, text=data.tokenizer is not None)
if preview is not None:
    preview(info, data)
elif series:
    val_start, test_start = split_points(len(frame), data.options["val_fraction"], data.options["test_fraction"])
    splits = {"train": (0, val_start), "validation": (val_start, test_start), "test": (test_start, len(frame))}
    figures.show(dataset_preview(frame, data.target, data.units, splits, title=info.title), key="data.preview")
    st.caption(
        "Drag on a chart or on the range slider under the top one to zoom; double-click to reset. The "
        "shaded bands are the chronological train, validation and test splits; the scaler is fitted on "
        "train only."
    )
else:
    total = sum(n.values())
    sample = st.slider("Sequence", 0, total - 1, 0, key=f"data.sample.{info.name}",
                       help="Sequences are independent; the first ones train, the next validate, the last test.")
    split = "train" if sample < n["train"] else "validation" if sample < n["train"] + n["val"] else "test"
    fig = sample_preview(sample_frame(data, sample), list(data.features), data.target, data.units,
                         classes=data.classes, title=f"Sequence {sample} ({split} split)",
                         image="image" in info.kinds)
    figures.show(fig, key="data.preview")

task = get_task(data.task)
summary = data.summary(task.target_per_sequence).rename(columns={"50%": "median"})
if data.tokenizer is None and not summary.empty:  # token ids have no meaningful mean; text pairs have no numbers
    st.subheader("Summary statistics")
    st.dataframe(
        summary, width="stretch",
        column_config={"count": st.column_config.NumberColumn(format="%d")}
        | {c: st.column_config.NumberColumn(format="%.4g") for c in summary.columns if c not in ("unit", "count")},
    )
    st.caption("Per column over all rows, in each column's own unit"
               + (f"; {data.target} once per sequence." if task.target_per_sequence else "."))
    if data.classes:
        st.markdown("**Classes in each split**" + (" (steps)" if task.sequence_outputs else " (sequences)"))
        st.dataframe(data.class_counts(), width="stretch")
