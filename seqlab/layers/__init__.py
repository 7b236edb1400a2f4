"""seqlab's Keras layers, grouped by family (see DESIGN.md section 2).

Each family package lists its public names in its `__all__`; they are all
importable from here, e.g. `from seqlab.layers import LSTM`.
"""

from seqlab.layers import recurrent
from seqlab.layers.recurrent import *  # noqa: F403  the recurrent family's public names

__all__ = [*recurrent.__all__]
