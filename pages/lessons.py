"""Lessons: a named preset's runs trained one after another and compared side by side."""

import streamlit as st

from seqlab.app import lesson
from seqlab.app.entry import require_entry
from seqlab.app.transformer_lesson import transformer_lesson
from seqlab.training.presets import PRESETS

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

st.title("Lessons")
st.caption(
    "A lesson trains a few models on the same data with the same budget, one after the other, and "
    "draws their validation curves on one chart: what each architecture buys, in about a minute."
)

preset = st.selectbox("Lesson", list(PRESETS.values()), format_func=lambda p: p.title, key="lessons.preset")
st.markdown(preset.description)
lesson.show_plan(preset)

jobs = lesson.jobs_of(preset)
running = any(not job.done for job in jobs)
if st.button("Run this lesson", key="lessons.run", type="primary", icon=":material/play_arrow:", disabled=running,
             help="Queues every run of the lesson; they train one at a time in the background."):
    lesson.start(preset)
    st.rerun()  # redraw with the button disabled and the live panel

if not jobs:
    st.info("Press **Run this lesson**: the runs train in the background and their curves draw here live.")
elif running:
    with st.container(border=True):
        lesson.show_progress(preset, jobs)
else:
    st.subheader("Result")
    lesson.show_results(jobs)
    st.page_link("pages/inspect.py", label="Look inside these runs on Inspect", icon=":material/biotech:")

st.divider()
st.header("Inside a Transformer")
st.caption("No training needed: the notes' attention walk-through, the positional encoding, and why a Transformer "
           "without positions reads a bag of words.")
transformer_lesson()
