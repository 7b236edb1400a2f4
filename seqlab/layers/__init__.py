"""seqlab's Keras layers, grouped by family (see DESIGN.md section 2)."""

from seqlab.layers.recurrent import (
    ESN,
    GRU,
    LSTM,
    ESNCell,
    ESNReadout,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    free_run,
    ridge_fit,
)

__all__ = [
    "ESN",
    "ESNCell",
    "ESNReadout",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
    "free_run",
    "ridge_fit",
]
