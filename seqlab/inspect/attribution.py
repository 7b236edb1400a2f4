r"""Which tokens made the answer: per-token contributions to a text model's probability of one class.

For a model that reads token ids and returns class probabilities, one sentence
$x = (x_1, \dots, x_T)$ and one class $c$ (for a labelling model: the tag $c$ of
one position $j$), each token $t$ gets a contribution to $F(x) = p(c \mid x)$:

**Occlusion**: the drop in probability when token $t$ is read as the unknown
token (``[UNK]``, what the model sees for a word it never learnt) and the rest
as it is; the positions stay, so a labelling model's token $j$ keeps its place,

$$ \Delta_t = p(c \mid x) - p(c \mid x_1, \dots, x_{t-1}, \mathrm{[UNK]}, x_{t+1}, \dots, x_T) $$

**Integrated gradients** (Sundararajan, Taly and Yan, 2017), on the embedded
sentence $e_t = E[x_t]$ along the straight path from the all-zero embedding
(the padding's mask is kept, so the path never changes the sentence's length):

$$ \mathrm{IG}_t = \sum_{d} e_{t,d} \int_0^1
   \frac{\partial F(\alpha e)}{\partial e_{t,d}} \, d\alpha
   \approx \sum_{d} e_{t,d} \, \frac{1}{m} \sum_{k=1}^{m}
   \frac{\partial F(\alpha_k e)}{\partial e_{t,d}}, \quad \alpha_k = \frac{k - 1/2}{m} $$

whose contributions add up to $F(e) - F(0)$ (completeness); what they miss
is the midpoint rule's error, returned as ``gap``. The gradients come from the
backend's automatic differentiation through the model as it is, run with its
embedding layer's output scaled (``seqlab.inspect.trace.run_with_stand_ins``).
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np
from keras import ops

from seqlab.inspect.gradients import autodiff
from seqlab.inspect.trace import reads_token_ids, run_with_stand_ins
from seqlab.text import UNK_ID

METHODS = ("integrated gradients", "occlusion")
IG_STEPS = 32  # midpoint-rule steps: the remaining gap to completeness is returned, and shown beside the figures


@dataclass(frozen=True)
class TokenAttribution:
    """Every token's contribution to ``p(c | x)``.

    Attributes:
        method: ``"integrated gradients"`` or ``"occlusion"``.
        target: the class (or tag) ``c`` explained.
        position: the position ``j`` whose tag is explained (``None`` for a sentence's class).
        scores: ``(T,)``, one contribution per token, in probability units (positive: for ``c``).
        probability: ``p(c | x)``.
        reference: ``p(c | 0)`` at the all-zero embedding (integrated gradients); ``None`` for occlusion.
        gap: ``sum(scores) - (probability - reference)``, the integral's numerical error; ``None`` for occlusion.
    """

    method: str
    target: int
    position: int | None
    scores: np.ndarray
    probability: float
    reference: float | None = None
    gap: float | None = None


def token_attribution(model, ids, target: int, method: str = "integrated gradients", position: int | None = None,
                      steps: int = IG_STEPS) -> TokenAttribution:
    """Each token's contribution to the model's probability of class ``target`` for the sentence ``ids``.

    Args:
        model: a Keras model reading token ids ``(B, L)`` (padding id 0, masked by its
            embedding) and returning probabilities ``(B, C)``, or ``(B, L, C)`` for labelling.
        ids: the sentence's token ids ``(T,)``, without padding, ``1 <= T <= L``.
        target: the class (tag) id ``c`` to explain.
        method: ``"integrated gradients"`` or ``"occlusion"``.
        position: for a labelling model, the token ``j`` (0-based) whose tag is explained.
        steps: ``m``, the integrated gradients' midpoint-rule steps.

    Example:

    ```python
    a = token_attribution(run.load_model(), tokenizer.encode("a gorgeous, witty film"), target=1)
    a.scores  # (4,): how much each token raised p(positive)
    ```
    """
    ids = np.asarray(ids)
    if method not in METHODS:
        raise ValueError(f"Unknown attribution method {method!r}; choose one of: {', '.join(METHODS)}.")
    if not reads_token_ids(model):
        raise ValueError("Per-token contributions need a model that reads token ids (a text run).")
    if ids.ndim != 1 or not len(ids) or not np.issubdtype(ids.dtype, np.integer) or (ids <= 0).any():
        raise ValueError(f"ids must be one sentence of token ids > 0, shape (T,) with T >= 1; got {ids.tolist()}.")
    length = model.inputs[0].shape[1] or len(ids)
    if len(ids) > length:
        raise ValueError(f"The sentence has {len(ids)} tokens; this model reads at most {length}: trim it.")
    classes = model.outputs[0].shape[-1]
    if not 0 <= target < classes:
        raise ValueError(f"target must be a class id in 0 .. {classes - 1}, got {target}.")
    labelling = len(model.outputs[0].shape) == 3
    if labelling and (position is None or not 0 <= position < len(ids)):
        raise ValueError(f"A labelling model explains one token's tag: position must be in 0 .. {len(ids) - 1}.")
    pick = (lambda p: p[:, position, target]) if labelling else (lambda p: p[:, target])
    if method == "occlusion":
        return _occlusion(model, ids, target, position if labelling else None, length, pick)
    return _integrated_gradients(model, ids, target, position if labelling else None, length, pick, steps)


def sentence_probabilities(model, ids) -> np.ndarray:
    """The model's probabilities for one sentence of token ids ``(T,)``: ``(C,)``, or ``(T, C)`` for labelling
    (the padding's steps left out). The sentence is padded to the model's input length, as in training."""
    ids = np.asarray(ids)
    length = model.inputs[0].shape[1] or len(ids)
    if ids.ndim != 1 or not 1 <= len(ids) <= length:
        raise ValueError(f"ids must be one sentence of 1 .. {length} token ids, got shape {ids.shape}.")
    p = np.asarray(ops.convert_to_numpy(model(_padded([ids], length), training=False)), dtype="float64")[0]
    return p[: len(ids)] if p.ndim == 2 else p


def _padded(rows: list[np.ndarray], length: int) -> np.ndarray:
    batch = np.zeros((len(rows), length), dtype="int32")
    for i, row in enumerate(rows):
        batch[i, : len(row)] = row
    return batch


def _occlusion(model, ids, target, position, length, pick) -> TokenAttribution:
    batch = np.repeat(_padded([ids], length), len(ids) + 1, axis=0)  # row 0 the sentence, row t + 1 ...
    batch[np.arange(1, len(ids) + 1), np.arange(len(ids))] = UNK_ID  # ... with token t unknown
    p = np.asarray(ops.convert_to_numpy(pick(model(batch, training=False))), dtype="float64")
    return TokenAttribution("occlusion", target, position, p[0] - p[1:], float(p[0]))


def _integrated_gradients(model, ids, target, position, length, pick, steps) -> TokenAttribution:
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}.")
    embedding = next((layer for layer in model.layers if isinstance(layer, keras.layers.Embedding)), None)
    if embedding is None:
        raise ValueError("Integrated gradients follow the path of the token embeddings: this model has no "
                         "Embedding layer. Use occlusion.")
    if embedding.input is not model.inputs[0]:
        # e.g. BERT's classifier maps the ids to its pre-training vocabulary and adds [CLS] and [SEP] first:
        # the embedding's positions are not the sentence's tokens.
        raise ValueError("Integrated gradients follow the path of the token embeddings, but this model changes "
                         "its tokens before embedding them. Use occlusion.")
    # Rows 0 .. m-1 the midpoints alpha_k, then alpha = 1 (F(e)) and alpha = 0 (F(0)).
    alphas = np.concatenate([(np.arange(steps) + 0.5) / steps, [1.0, 0.0]]).astype("float32")
    batch = np.repeat(_padded([ids], length), len(alphas), axis=0)
    e = np.asarray(ops.convert_to_numpy(embedding(batch[:1])), dtype="float64")[0, : len(ids)]  # (T, d)
    scale = ops.convert_to_tensor(alphas[:, None, None])

    def probabilities(zeros):
        def scaled(tokens, *_, **__):  # alpha E[x] + 0: the watched zero's gradient is dF/de at alpha e
            return scale * embedding(tokens) + zeros[0]

        return pick(run_with_stand_ins(model, batch, lambda layer: scaled if layer is embedding else None))

    zeros = [np.zeros((len(alphas), length, e.shape[-1]), dtype="float32")]
    # The rows are independent: the gradient of their sum is every row's own gradient.
    _, [grads] = autodiff(lambda z: ops.sum(probabilities(z)), zeros)
    grads = np.asarray(ops.convert_to_numpy(grads), dtype="float64")[:steps, : len(ids)]  # (m, T, d)
    values = np.asarray(ops.convert_to_numpy(probabilities(zeros)), dtype="float64")
    scores = (e * grads.mean(axis=0)).sum(axis=-1)
    full, reference = float(values[steps]), float(values[steps + 1])
    return TokenAttribution("integrated gradients", target, position, scores, full, reference,
                            float(scores.sum() - (full - reference)))
