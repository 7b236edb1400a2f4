r"""BERT's next-sentence pairs (seed 002), drawn anew: half the rows keep B, the other half get another row's B.

Every row holds a text cut in two, ``[CLS] A [SEP] B [SEP]``, B the true
continuation of A. ``draw_pairs`` gives row $i$, with probability 1/2, the B
of row $\pi(i)$ instead, $\pi$ a rotation of the batch by a random shift
(never the row itself), and sets the next-sentence label at the ``[CLS]``
position:

$$ r_i \sim \mathrm{Bernoulli}(0.5),\qquad
   \texttt{[CLS]}\, A_i\, \texttt{[SEP]}\, B_{\,r_i ? \pi(i) : i}\, \texttt{[SEP]},\qquad
   \text{is\_next}_i = 1 - r_i $$

The masked-LM targets move with B's tokens. A and B must each fit half the
row (``seqlab.data.bert_pretraining`` cuts them so), so that any A fits
with any B.

Drawn anew at every batch by the training step (from the model's seed
generator), the pairs cannot be learnt by heart: a fixed set of pairs,
seen once per epoch with the same label, is memorised by a small model
while its held-out next-sentence accuracy falls to chance. The held-out
splits are drawn once, by their seed, as they are masked once
(``seqlab.data.bert_masking``): one function serves both.
"""

from __future__ import annotations

RANDOM_SHARE = 0.5  # of the rows: B from another row (is_next 0)


def draw_pairs(ids, targets, seed, *, sep_id: int, random_share: float = RANDOM_SHARE):
    """Next-sentence pairs drawn from rows of true continuations (module docstring).

    Args:
        ids: ``(B, T)`` token ids, each row ``[CLS] A [SEP] B [SEP]`` then padding (0).
        targets: ``(B, T)`` ints aligned with ``ids`` (the masked-LM candidates); column 0 is overwritten.
        seed: a ``keras.random.SeedGenerator`` (a new draw at every call) or an int (one fixed draw).
        sep_id: the id of ``[SEP]``.
        random_share: the share of rows whose B comes from another row.

    Returns:
        ``(ids, targets)``: int32 ``(B, T)`` tensors; ``targets[:, 0]`` is the next-sentence label
        (1: B continues A). A batch of one row keeps its B.
    """
    import keras
    from keras import ops

    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must lie in [0, 1], got {random_share}: BERT uses 0.5.")
    generator = seed if isinstance(seed, keras.random.SeedGenerator) else keras.random.SeedGenerator(int(seed))
    ids, targets = ops.cast(ids, "int32"), ops.cast(targets, "int32")
    rows, length = ops.shape(ids)[0], ops.shape(ids)[1]
    row = ops.arange(rows, dtype="int32")
    # One rotation per draw, by 1 .. rows - 1: every row's partner is another row.
    shift = 1 + ops.cast(keras.random.uniform((), seed=generator) * ops.cast(rows - 1, "float32"), "int32")
    swapped = ops.logical_and(keras.random.uniform((rows,), seed=generator) < random_share, rows > 1)
    partner = ops.where(swapped, (row + shift) % rows, row)
    first_sep = ops.cast(ops.argmax(ops.cast(ops.equal(ids, sep_id), "int32"), axis=1), "int32")  # where A ends
    real = ops.sum(ops.cast(ops.not_equal(ids, 0), "int32"), axis=1)  # (B,): [CLS] A [SEP] B [SEP]
    position = ops.arange(length, dtype="int32")[None, :]
    # Position t after row i's first [SEP] reads its partner's token that far after the partner's first [SEP].
    source = position - first_sep[:, None] + ops.take(first_sep, partner)[:, None]
    after = position > first_sep[:, None]
    inside = source < ops.take(real, partner)[:, None]
    source = ops.clip(source, 0, length - 1)

    def moved(values):
        theirs = ops.take_along_axis(ops.take(values, partner, axis=0), source, axis=1)
        return ops.where(after, ops.where(inside, theirs, 0), values)

    labels = 1 - ops.cast(swapped, "int32")
    targets = moved(targets)
    return moved(ids), ops.concatenate([labels[:, None], targets[:, 1:]], axis=1)
