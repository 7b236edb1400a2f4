"""Streamlit glue: session state, cached loaders, job polling and shared widgets.

The only package of seqlab that imports Streamlit. Pages stay thin: they call
the widgets here, a seqlab function, and a figure builder from ``seqlab.plots``.

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
