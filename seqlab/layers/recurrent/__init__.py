"""Recurrent layers: Elman RNN, LSTM (and the notes' build-up of it), GRU, echo state network.

Every cell has `step(inputs, states, training=False) -> (output, new_states, internals)`
and a class attribute `internal_names`; the layers run that step inside `keras.layers.RNN`.
"""

from seqlab.layers.recurrent.esn import ESN, ESNCell, ESNReadout, free_run, reservoir_states, ridge_fit
from seqlab.layers.recurrent.gru import GRU, GRUCell
from seqlab.layers.recurrent.lstm import LSTM, LSTMCell
from seqlab.layers.recurrent.simple_rnn import SimpleRNN, SimpleRNNCell

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
    "reservoir_states",
    "ridge_fit",
]
