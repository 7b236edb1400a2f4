"""seqlab dashboard: ``streamlit run streamlit_app.py``.

The entry script: page config, navigation over ``pages/``, and the sidebar
(training device, this session's active job) shown on every page.
"""

import streamlit as st

st.set_page_config(page_title="seqlab", page_icon=":material/timeline:", layout="wide")

from seqlab.app import entry, sidebar  # noqa: E402  (after set_page_config; imports TensorFlow)

# Sections in the order of a lesson: start, build and judge a model, look inside it, use it.
pages = {
    "Start": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/lessons.py", title="Lessons", icon=":material/school:"),
    ],
    "Build and judge": [
        st.Page("pages/data.py", title="Data", icon=":material/table_chart:"),
        st.Page("pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("pages/models.py", title="Models", icon=":material/inventory_2:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    ],
    "Look inside": [
        st.Page("pages/inspect.py", title="Inspect", icon=":material/biotech:"),
        st.Page("pages/embeddings.py", title="Embeddings", icon=":material/scatter_plot:"),
    ],
    "Use a model": [
        st.Page("pages/classify.py", title="Classify", icon=":material/label:"),
        st.Page("pages/forecast.py", title="Forecast", icon=":material/query_stats:"),
        st.Page("pages/translate.py", title="Translate", icon=":material/translate:"),
        st.Page("pages/generate.py", title="Generate", icon=":material/edit_note:"),
        st.Page("pages/fill_in.py", title="Fill in", icon=":material/edit:"),
    ],
}
page = st.navigation(pages, expanded=True)  # every page listed: no "View more" to find
entry.mark_entry()
entry.follow_goto()  # a cold deep link (/train) first ran the page alone: go there now
sidebar.render()
page.run()
