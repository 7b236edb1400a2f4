"""The weight limit (``max_parameters``) while Keras builds a model, from a file's config or from options.

Loading a ``.keras`` file builds the model from its ``config.json`` before a
stored weight is read, and ``seqlab.models.build_model`` builds one from the
options a user chose: every layer asks ``Layer.add_weight`` for weights of
the shapes its sizes decide (units, layers, vocabulary, kernel size, input
shape). A config a few hundred bytes long, or a few options, can ask for
billions, and making them would take the time and memory. Inside
``weight_budget()`` every ``add_weight`` of this thread is counted from its
shape before the weight is made, and once the count passes ``max_parameters``
the build stops with a ``ValueError`` naming the limit: a refused model never
holds more weights than the limit allows. The count is Keras's own (the
shapes any Keras or seqlab layer asks for), so it equals ``count_params()`` of
the model once built; other threads (a training job) are not counted.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from typing import Iterator

import keras

from seqlab.limits import current_limits, limit_hint

_counting = threading.local()  # .weights, .limit: the count and limit of the load in this thread; None: none
_add_weight = keras.layers.Layer.add_weight


@functools.wraps(_add_weight)
def _counted_add_weight(self, *args, **kwargs):
    if getattr(_counting, "weights", None) is not None:
        shape = kwargs.get("shape", args[0] if args else None)
        _counting.weights += math.prod(abs(int(d)) for d in shape or ())
        if _counting.weights > _counting.limit:
            raise ValueError(
                f"The model asks for more than {_counting.limit:,} weights, the limit "
                f"({limit_hint('max_parameters')}); seqlab stopped before making them: reduce units or layers."
            )
    return _add_weight(self, *args, **kwargs)


keras.layers.Layer.add_weight = _counted_add_weight  # once per process; outside weight_budget() it only passes on


@contextlib.contextmanager
def weight_budget() -> Iterator[None]:
    """Refuse, before it is made, any weight that takes the models built in this block past ``max_parameters``.

    A block inside another (a model built on a loaded run's model) counts its
    own models against their own limit; the outer block's count goes on after it.
    """
    outer = getattr(_counting, "weights", None), getattr(_counting, "limit", None)
    _counting.limit = current_limits().max_parameters
    _counting.weights = 0
    try:
        yield
    finally:
        _counting.weights, _counting.limit = outer
