r"""Scores of translations: exact match, token accuracy, BLEU and chrF.

Pure functions on strings and token ids, no Keras. Exact match and token
accuracy are fractions in [0, 1] like every accuracy in seqlab; BLEU and chrF are
corpus-level scores in [0, 100] as ``sacrebleu`` reports them (the standard
implementations, so figures compare with published ones).

BLEU (Papineni et al., 2002) is the geometric mean of the modified n-gram
precisions $p_n$, $n = 1..4$, over the whole corpus, times a brevity penalty for
hypotheses shorter than their references ($c$, $r$: total hypothesis and
reference length in words):

$$ \mathrm{BLEU} = 100 \cdot \min\!\left(1, e^{1 - r/c}\right)
   \exp\!\left(\tfrac14 \textstyle\sum_{n=1}^{4} \log p_n\right) $$

chrF (Popović, 2015) is the F-score ($\beta = 2$: recall weighs twice) of
character n-grams, $n = 1..6$, averaged over $n$; it gives partial credit to a
word spelt almost right, where BLEU gives none.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from seqlab.text.tokenizer import PAD_ID


def _check_pairs(references: Sequence[str], hypotheses: Sequence[str]) -> tuple[list[str], list[str]]:
    """Both as lists of strings of the same non-zero length, or a ValueError saying what differs."""
    references, hypotheses = list(references), list(hypotheses)
    if len(references) != len(hypotheses):
        raise ValueError(
            f"{len(references):,} references but {len(hypotheses):,} hypotheses: give one hypothesis per reference."
        )
    if not references:
        raise ValueError("No references and hypotheses: give at least one pair to score.")
    bad = [type(s).__name__ for s in (*references, *hypotheses) if not isinstance(s, str)]
    if bad:
        raise ValueError(f"References and hypotheses must be strings, got {bad[0]}: decode token ids first.")
    return references, hypotheses


def exact_match(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """The fraction of hypotheses equal to their reference, character for character (in [0, 1]).

    The strictest score: "einundzwanzig" for "einundzwanzig" counts, "einundzwanzg" counts nothing.
    """
    references, hypotheses = _check_pairs(references, hypotheses)
    return sum(r == h for r, h in zip(references, hypotheses)) / len(references)


def token_accuracy(y_true_ids, y_pred_ids, mask=None) -> float:
    """The fraction of the real target tokens, ``[EOS]`` included, predicted right at their position.

    Args:
        y_true_ids: ``(N, L)`` target ids: tokens, one ``[EOS]``, then ``PAD_ID`` padding.
        y_pred_ids: ``(N, L)`` predicted ids at the same positions (teacher-forced or free-running).
        mask: ``(N, L)`` booleans, True at the tokens to count; ``None``: every id of ``y_true_ids``
            that is not padding.

    Returns:
        Right tokens over counted tokens, in [0, 1]. A hypothesis that stops early loses its missing
        tokens; padding never counts, whatever is predicted there.
    """
    y_true, y_pred = np.asarray(y_true_ids), np.asarray(y_pred_ids)
    if y_true.shape != y_pred.shape or y_true.ndim != 2:
        raise ValueError(
            f"y_true_ids and y_pred_ids must both be (N, L) ids of the same shape, got {y_true.shape} and "
            f"{y_pred.shape}: pad the predictions to the targets' length."
        )
    real = y_true != PAD_ID if mask is None else np.asarray(mask, dtype=bool)
    if real.shape != y_true.shape:
        raise ValueError(f"mask must have the targets' shape {y_true.shape}, got {real.shape}.")
    if not real.any():
        raise ValueError("No real target tokens to score: every position is padding or masked out.")
    return float((y_true == y_pred)[real].mean())


def bleu(references: Sequence[str], hypotheses: Sequence[str], tokenize: str = "13a") -> float:
    """Corpus BLEU in [0, 100] (``sacrebleu.corpus_bleu``, one reference each).

    Word n-gram precision, n = 1..4, with a brevity penalty: how much of the hypotheses' wording
    the references share. Near 0 for single words that are wrong, even when almost right.
    ``tokenize``: sacrebleu's tokeniser, ``"13a"`` (words) or ``"char"`` (characters: for outputs
    of one word, such as a number or a date, whose words would have no 2- to 4-grams).
    """
    import sacrebleu  # here: listing commands and the Data page never need it

    references, hypotheses = _check_pairs(references, hypotheses)
    return float(sacrebleu.corpus_bleu(hypotheses, [references], tokenize=tokenize).score)


def chrf(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """Corpus chrF in [0, 100] (``sacrebleu.corpus_chrf``: character n-grams 1..6, beta = 2, one reference each).

    Character n-gram F-score: how much of the references' spelling the hypotheses recover, with
    partial credit for a nearly right word ("einundzwanzg" for "einundzwanzig").
    """
    import sacrebleu

    references, hypotheses = _check_pairs(references, hypotheses)
    return float(sacrebleu.corpus_chrf(hypotheses, [references]).score)
