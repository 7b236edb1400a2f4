"""Streamlit glue: session state, cached loaders, job polling and shared widgets.

The only package of seqlab that imports Streamlit. Pages stay thin: they call
the widgets here, a seqlab function, and a figure builder from ``seqlab.plots``.

Sorted by axis: the flat modules here are the core every page uses; ``tasks``
holds each task's views, ``inspect`` the Inspect and Embeddings views,
``lessons`` the Lessons page and its views, ``uploads`` the user's own files.
Importing this package imports all four, so every view and upload is registered
before any page runs, whichever page a session opens first.

Keras and TensorFlow are imported here, at module top, in the script thread:
a first import inside the training worker thread races the script's own
imports (measured on this stack).
"""

import keras  # noqa: F401  isort: skip
import tensorflow  # noqa: F401  isort: skip

import seqlab.data  # noqa: F401  registers the datasets
import seqlab.models  # noqa: F401  registers the architectures
import seqlab.training.jobs  # noqa: F401  imports run_experiment in this thread
from seqlab.app import guard

guard.install()  # Streamlit's per-rerun keras clear_session must not hit a running job

# Every view and upload module, once: each registers itself (the subpackages' __init__ stay empty, since
# their modules import one another across subpackages).
from seqlab.app.tasks import (  # noqa: E402,F401  isort: skip
    forecast_results, regress_results, classify_results, label_results, forecast_view,
    language_view, text_stats_view, generate_view, text_classes_view, classify_view,
    pairs_view, translate_view, masked_lm_view, fill_in_view,
)
from seqlab.app.inspect import (  # noqa: E402,F401  isort: skip
    inspect_view, inspect_text_view, attention_view, positional_view, hmm_view, receptive_field_view,
    state_space_view, embeddings_view,
)
from seqlab.app.lessons import (  # noqa: E402,F401  isort: skip
    lesson_views, lesson_views_recurrent, lesson_views_language, lesson_views_state_space, transformer_lesson,
    lesson,
)
from seqlab.app.uploads import (  # noqa: E402,F401  isort: skip
    upload, csv_upload, text_csv_upload, pairs_upload, model_upload,
)
