"""Plotly figure builders: data in, ``go.Figure`` out. No Streamlit here.

Every figure has a title, axis titles with units and a legend where there is
more than one trace, so it reads the same in the dashboard, a notebook or a
saved HTML file.
"""

from seqlab.plots.compare import batch_loss_curves, validation_curves
from seqlab.plots.embeddings import embedding_projection
from seqlab.plots.figure_data import figure_table
from seqlab.plots.forecast import forecast_window
from seqlab.plots.horizon import error_by_step, regular_step
from seqlab.plots.generated import probability_legend, token_spans
from seqlab.plots.hmm import emission_matrix, hmm_path, hmm_posteriors, transition_matrix
from seqlab.plots.inspect import (
    gate_heatmaps,
    grad_norm_per_batch,
    gradient_norms,
    internal_label,
    pca_trajectory,
    state_heatmap,
    state_lines,
)
from seqlab.plots.projector import OKABE_ITO, for_projector
from seqlab.plots.series import dataset_preview
from seqlab.plots.style import axis_title, squared_unit
from seqlab.plots.training import learning_rate_per_batch, loss_curves
from seqlab.plots.runs import runs_comparison
from seqlab.plots.tokens import token_frequencies
from seqlab.plots.token_chips import token_chips
from seqlab.plots.vocabulary import vocabulary_sweep_chart
from seqlab.plots.samples import (
    class_probabilities,
    confusion_matrix,
    label_sequence,
    predicted_vs_actual,
    sample_preview,
)

__all__ = [
    "axis_title",
    "class_probabilities",
    "confusion_matrix",
    "embedding_projection",
    "figure_table",
    "for_projector",
    "OKABE_ITO",
    "label_sequence",
    "predicted_vs_actual",
    "sample_preview",
    "token_frequencies",
    "token_chips",
    "vocabulary_sweep_chart",
    "dataset_preview",
    "forecast_window",
    "error_by_step",
    "regular_step",
    "gate_heatmaps",
    "emission_matrix",
    "hmm_path",
    "hmm_posteriors",
    "transition_matrix",
    "grad_norm_per_batch",
    "gradient_norms",
    "internal_label",
    "pca_trajectory",
    "state_heatmap",
    "state_lines",
    "learning_rate_per_batch",
    "loss_curves",
    "runs_comparison",
    "squared_unit",
    "probability_legend",
    "token_spans",
    "batch_loss_curves",
    "validation_curves",
]
