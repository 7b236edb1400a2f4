"""Lessons: one per topic of the lecture; a short preset's runs, their equations, one view inside, what to notice."""

import streamlit as st

from seqlab.app.lessons import lesson, teacher_menu
from seqlab.app.entry import require_entry

require_entry(__file__)  # a cold deep link ran this page alone: go through the entry script

title, corner = st.columns([5, 1], vertical_alignment="bottom")
title.title("Lessons")
with corner:
    teacher, menu = teacher_menu.teacher_controls()
if not teacher.lock:
    st.caption(
        "One lesson per topic of the lecture: a few sentences, the layers' equations, a handful of runs that train "
        "in about a minute, one view inside them and what to notice there."
    )
chosen = lesson.pick_lesson(menu if teacher.lock else st.container(), teacher)
lesson.show_lesson(chosen, teacher)

if not teacher.lock:
    st.divider()
    lesson.longer_experiments()
