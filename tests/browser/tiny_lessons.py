"""A dashboard whose lessons are shrunk to seconds, for the browser: ``serve`` runs ``streamlit run`` in a process
whose lessons are the tiny ones of ``tests.lesson_runs``, so a lesson whose tiny runs are in its store opens with its
result at once (a lesson's runs are served by identity: the same spec, data and code), and one that is not trains in
seconds.
"""

from __future__ import annotations

import dataclasses
import sys

from seqlab.lessons import LESSONS
from tests.lesson_runs import tiny_specs


def shrink_lessons() -> None:
    """Swap every lesson's preset for its tiny specs (in this process: the server's)."""
    for name in LESSONS.names():
        lesson = LESSONS.get(name)
        preset = dataclasses.replace(lesson.preset, specs=tiny_specs(name))
        LESSONS._entries[name] = dataclasses.replace(lesson, preset=preset)


def serve(argv: list[str]) -> None:
    """``streamlit`` with ``argv`` (``run streamlit_app.py ...``) in this process, its lessons shrunk."""
    from streamlit.web.cli import main

    from seqlab.training.identity import code_version

    shrink_lessons()
    code_version()  # hashed now, as the test's process hashed it: an edit meanwhile would change every identity
    sys.argv = ["streamlit", *argv]
    main()


if __name__ == "__main__":
    serve(sys.argv[1:])
