"""Projector mode's run tables (seqlab.app.projector_style.show_table): HTML whose cells wrap, formatted as the
dataframe would be, without the bookkeeping columns."""

import math

from streamlit.testing.v1 import AppTest


def draw(projector: bool) -> None:
    import numpy as np
    import pandas as pd
    import streamlit as st

    from seqlab.app import projector_style
    from seqlab.app.run_table import RUN_COLUMNS

    st.session_state[projector_style.PROJECTOR_KEY] = projector
    table = pd.DataFrame({"run": ["20261128-121727-numbers_en_de-seq2seq-b627"], "model": ["Encoder-decoder"],
                          "test": [np.float64(0.0012345)], "skill": [-5.23], "params": [np.int64(4513)],
                          "best baseline": [float("nan")]})
    projector_style.show_table(table, ["run", "model", "test", "best baseline", "skill", "params"], RUN_COLUMNS)


def test_in_projector_mode_a_run_table_is_html_that_wraps_without_its_bookkeeping():
    at = AppTest.from_function(draw, args=(True,)).run()
    assert not at.exception and not at.dataframe
    shown = at.table[0].value
    assert list(shown.columns) == ["model", "value", "skill"]  # no run id, baseline's value or weights
    assert shown["value"].tolist() == ["0.001234"] and shown["skill"].tolist() == ["-5.2"]


def test_otherwise_it_is_the_sortable_dataframe_with_every_column():
    at = AppTest.from_function(draw, args=(False,)).run()
    assert not at.exception and not at.table
    assert at.dataframe[0].value["params"].tolist() == [4513] and not math.isnan(at.dataframe[0].value["test"][0])
