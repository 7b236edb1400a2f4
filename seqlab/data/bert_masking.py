r"""BERT's masking (seed 002): choose 15 % of the tokens; of those 80 % become [MASK], 10 % a random token, 10 % stay.

The masked language model must predict every chosen token from the rest of
the sentence; the loss is taken on the chosen positions only. Replacing some
chosen tokens by a random one or keeping them means the model cannot learn
that only [MASK] positions matter (fine-tuning never shows it a [MASK]).

Each position that may be chosen (a real token, not [CLS], [SEP] or padding)
is chosen independently with probability ``rate`` (a Bernoulli draw, as
HuggingFace's collator; the original draws exactly round(0.15 n) per
sequence), and each chosen one is then replaced with probabilities
``mask_share``, ``random_share`` and the rest kept:

$$ c_t \sim \mathrm{Bernoulli}(0.15),\qquad \tilde x_t = \begin{cases}
   \texttt{[MASK]} & u_t < 0.8 \\ v \sim \mathcal{U}\{\text{words}\} & 0.8 \le u_t < 0.9 \\ x_t & \text{else}
   \end{cases} \quad (c_t = 1) $$

One function, in ``keras.ops``, serves both uses: the training step draws a
new masking for every batch (dynamic masking, RoBERTa's: a sentence is masked
differently every epoch) from the model's own seed generator, and the
validation and test splits are masked once, by their seed, so their losses
compare across epochs and runs.
"""

from __future__ import annotations

RATE = 0.15  # share of the candidate tokens chosen
MASK_SHARE = 0.8  # of the chosen: replaced by [MASK]
RANDOM_SHARE = 0.1  # of the chosen: replaced by a random word (the remaining 0.1 are kept)


def mask_tokens(ids, candidates, seed, *, vocab_size: int, mask_id: int, first_word_id: int, rate: float = RATE,
                mask_share: float = MASK_SHARE, random_share: float = RANDOM_SHARE):
    """Mask ``ids`` as BERT does (module docstring).

    Args:
        ids: token ids ``(B, T)`` (a tensor, or a NumPy array).
        candidates: booleans ``(B, T)``, True where a token may be chosen (real, non-special tokens).
        seed: a ``keras.random.SeedGenerator`` (a new draw at every call: the training step's) or an
            int (one fixed draw: a held-out split's).
        vocab_size: V; random replacements are drawn uniformly from ``first_word_id .. V-1``.
        mask_id: the id of ``[MASK]``.
        first_word_id: the first id that is not a special token.
        rate, mask_share, random_share: the shares above.

    Returns:
        ``(masked_ids, chosen)``: int32 ``(B, T)`` and bool ``(B, T)`` tensors; ``masked_ids`` equals
        ``ids`` wherever ``chosen`` is False.
    """
    import keras
    from keras import ops

    if not 0.0 < rate <= 1.0 or mask_share < 0 or random_share < 0 or mask_share + random_share > 1:
        raise ValueError(
            f"rate must lie in (0, 1] and mask_share + random_share in [0, 1], got rate {rate}, mask_share "
            f"{mask_share}, random_share {random_share}: BERT uses 0.15, 0.8 and 0.1."
        )
    if not 0 <= first_word_id < vocab_size:
        raise ValueError(f"first_word_id {first_word_id} must be below vocab_size {vocab_size}: "
                         "the vocabulary needs words beyond its special tokens.")
    generator = seed if isinstance(seed, keras.random.SeedGenerator) else keras.random.SeedGenerator(int(seed))
    ids = ops.cast(ids, "int32")
    shape = ops.shape(ids)
    chosen = ops.logical_and(ops.cast(candidates, "bool"), keras.random.uniform(shape, seed=generator) < rate)
    u = keras.random.uniform(shape, seed=generator)
    random_words = keras.random.randint(shape, first_word_id, vocab_size, seed=generator, dtype="int32")
    replaced = ops.where(u < mask_share, mask_id, ops.where(u < mask_share + random_share, random_words, ids))
    return ops.where(chosen, replaced, ids), chosen
