"""The Lessons page's Teacher menu: what the class sees (lock the lesson, hide its settings, equations or notice).

Without a teacher key every session is the teacher, and the switches live in
the page's link like every setting: the teacher shares the link. On a server
with a key (``seqlab.app.who``) they are the server's (``seqlab.classroom``):
the teacher's switches are written there and hold for every student session
from its next rerun on, whatever its link says; a student's menu asks for the
key instead, and a locked lesson shows without a topic picker.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from seqlab.app import who
from seqlab.app.widgets import KEPT
from seqlab.classroom import Classroom, read_classroom, write_classroom
from seqlab.lessons import LESSONS
from seqlab.runs import default_root


@dataclass(frozen=True)
class Teacher:
    """The teacher's switches as they hold for this session: what the class sees."""

    lock: bool = False  # the page shows this lesson only; the topic picker moves into the Teacher menu
    hide_plan: bool = False
    hide_equations: bool = False
    hide_notice: bool = False  # students guess first; the teacher reveals it by switching it back
    lesson: str | None = None  # the lesson the server's lock holds this student to: no topic picker at all


TEACHER_SWITCHES = {  # Teacher field -> (label, help)
    "lock": ("Lock this lesson", "The page shows only this lesson: no topic picker, no other experiments."),
    "hide_plan": ("Hide the settings", "Hide the table of the runs' models and settings."),
    "hide_equations": ("Hide the equations", "Hide the equations until you reveal them."),
    "hide_notice": ("Hide what to notice", "Let the class guess what the runs show before you reveal it."),
}
HIDDEN = "Hidden by the teacher for now."
LESSON_KEY = "lessons.lesson"  # the topic picker's key (``seqlab.app.lessons.lesson.pick_lesson``)
SERVER_KEY = "lessons.classroom.{name}"  # a server switch's widget: never in the link


def teacher_controls() -> tuple[Teacher, DeltaGenerator]:
    """The Teacher menu and the switches as they hold for this session; the menu holds the topic picker while the
    lesson is locked."""
    menu = st.popover("Teacher", icon=":material/school:")
    with menu:
        if not who.classroom():
            st.caption("Each switch is kept in the page's link: copy the address bar to give the class this page as "
                       "you set it.")
            return Teacher(**{name: st.toggle(text, key=f"lessons.teacher.{name}", help=help_text, **KEPT)
                              for name, (text, help_text) in TEACHER_SWITCHES.items()}), menu
        room = server_switches()
        if who.is_teacher():
            return switches_on_server(room), menu
        st.caption("The teacher's switches hold for this page: their key changes them.")
        who.key_form()
    lesson = room.lesson if room.lesson in LESSONS.names() else None
    return Teacher(lesson is not None, room.hide_plan, room.hide_equations, room.hide_notice, lesson), menu


def server_switches() -> Classroom:
    """The switches the teacher left on the server (all off when a damaged file is shown as an error)."""
    try:
        return read_classroom(default_root())
    except (ValueError, OSError) as err:
        st.error(f"The teacher's switches cannot be read: {err}")
        return Classroom()


def switches_on_server(room: Classroom) -> Teacher:
    """The teacher's switches, shown as the server holds them; turning one writes it there for every student."""
    st.caption("Each switch holds for every student's session on this server, whatever their link says.")
    values = {"lock": room.lesson is not None, "hide_plan": room.hide_plan, "hide_equations": room.hide_equations,
              "hide_notice": room.hide_notice}
    for name, (text, help_text) in TEACHER_SWITCHES.items():
        st.session_state[SERVER_KEY.format(name=name)] = values[name]  # another teacher's tab may have turned it
        st.toggle(text, key=SERVER_KEY.format(name=name), help=help_text, on_change=_write_switches)
    return Teacher(**values)


def _write_switches() -> None:
    """A switch turned: the server's switches as this teacher's menu now shows them, locked on its lesson."""
    on = {name: bool(st.session_state.get(SERVER_KEY.format(name=name))) for name in TEACHER_SWITCHES}
    lesson = st.session_state.get(LESSON_KEY) or LESSONS.names()[0]
    write_classroom(default_root(), Classroom(lesson if on.pop("lock") else None, **on))


def follow_pick() -> None:
    """The teacher picked another topic while the server's lock holds: the students follow to it."""
    if who.classroom() and who.is_teacher() and server_switches().lesson is not None:
        _write_switches()
