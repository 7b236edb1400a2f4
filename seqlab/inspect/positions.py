"""What each position is called after a layer that changes the sequence, so attention maps read as words or patches.

A trace starts from one label per input step (the tokens, the time steps).
Three layers change which positions the blocks after them attend over; each
has a probe here that runs the layer and relabels the trace from then on
(``_Tracer.time_labels``), so an attention map shows:

- ``ClassToken``: ``[CLS]`` in front of the labels;
- ``BertSentence``: ``[CLS]``, the sentence's tokens, ``[SEP]`` after the last
  real one (padding keeps its labels, after it);
- ``ImagePatches``: one label per patch, ``(i,j)``, its row and column in the
  grid of patches (reading order, as the layer cuts them).

The labels of a batch are its first sample's (the dashboard traces one).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from keras import ops

from seqlab.inspect.trace import _Tracer, register_probe
from seqlab.layers.class_token import ClassToken
from seqlab.layers.patches import ImagePatches
from seqlab.models.bert_layers import BertSentence
from seqlab.text import CLS, PAD_ID, SEP


def relabelled(tracer: _Tracer, layer, labels_after: Callable) -> Callable:
    """A stand-in for ``layer``: the layer's own call, after which the trace reads ``labels_after(inputs, labels)``."""

    def call(inputs, *args, **kwargs):
        tracer.time_labels = labels_after(inputs, list(tracer.time_labels))
        return layer(inputs, *args, **kwargs)

    return call


@register_probe(ClassToken)
def class_token_probe(tracer: _Tracer, layer) -> Callable:
    return relabelled(tracer, layer, lambda inputs, labels: [CLS, *labels])


@register_probe(BertSentence)
def bert_sentence_probe(tracer: _Tracer, layer) -> Callable:
    def labels_after(ids, labels):
        real = int(np.sum(ops.convert_to_numpy(ids)[0] != PAD_ID))  # [SEP] goes after the real tokens
        return [CLS, *labels[:real], SEP, *labels[real:]]

    return relabelled(tracer, layer, labels_after)


@register_probe(ImagePatches)
def image_patches_probe(tracer: _Tracer, layer) -> Callable:
    def labels_after(images, labels):
        rows, columns = (size // layer.patch_size for size in images.shape[1:3])
        return [f"({i},{j})" for i in range(1, rows + 1) for j in range(1, columns + 1)]

    return relabelled(tracer, layer, labels_after)
