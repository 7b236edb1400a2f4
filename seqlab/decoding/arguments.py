"""Checks of the decoders' arguments: each refusal names the argument, the value and the fix."""

from __future__ import annotations

import math

import numpy as np

from seqlab.checks import shown

# Bounds that keep one request from tying up a shared machine.
MAX_NEW_TOKENS = 10_000
MAX_WIDTH = 256


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_prompts(prompts) -> np.ndarray:
    """``prompts`` as int64 ``(batch, length)``: one prompt per row, all of one length >= 1."""
    try:
        array = np.asarray(prompts)
    except ValueError:  # NumPy refuses ragged nested lists
        raise ValueError(
            "prompts must all have the same length; decode prompts of different lengths one call each."
        ) from None
    if array.dtype == object or array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(
            f"prompts must be a batch of token ids of shape (prompts, length) with both >= 1, got shape "
            f"{array.shape if array.dtype != object else 'ragged'}; wrap a single prompt as [ids]."
        )
    if array.dtype.kind not in "iu":
        raise ValueError(f"prompts must be integer token ids, got dtype {array.dtype}.")
    if (array < 0).any():
        raise ValueError(f"prompts must be token ids >= 0, got {int(array.min())}.")
    return array.astype(np.int64)


def check_max_new_tokens(value) -> int:
    if not _is_int(value) or not 0 <= value <= MAX_NEW_TOKENS:
        raise ValueError(f"max_new_tokens must be an integer in [0, {MAX_NEW_TOKENS}], got {shown(value)}.")
    return int(value)


def check_eos_id(value) -> int | None:
    if value is not None and (not _is_int(value) or value < 0):
        raise ValueError(f"eos_id must be a token id >= 0 or None (no end token), got {shown(value)}.")
    return None if value is None else int(value)


def check_alternatives(value) -> int:
    if not _is_int(value) or value < 0:
        raise ValueError(f"alternatives must be an integer >= 0 (ids listed beside each token), got {shown(value)}.")
    return int(value)


def check_temperature(value) -> float:
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise ValueError(
            f"temperature must be a finite number >= 0 (0 means greedy, 1 the model's own distribution), "
            f"got {shown(value)}."
        )
    return float(value)


def check_top_k(value) -> int | None:
    if value is not None and (not _is_int(value) or value < 1):
        raise ValueError(f"top_k must be an integer >= 1 or None (no top-k filter), got {shown(value)}.")
    return None if value is None else int(value)


def check_top_p(value) -> float | None:
    if value is not None and (not _is_number(value) or not 0 < value <= 1):
        raise ValueError(f"top_p must be a number in (0, 1] or None (no top-p filter), got {shown(value)}.")
    return None if value is None else float(value)


def check_width(value) -> int:
    if not _is_int(value) or not 1 <= value <= MAX_WIDTH:
        raise ValueError(f"width must be an integer in [1, {MAX_WIDTH}] (beams kept per prompt), got {shown(value)}.")
    return int(value)


def check_length_penalty(value) -> float:
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise ValueError(
            f"length_penalty must be a finite number >= 0 (0: plain sum of log-probabilities; GNMT uses 0.6 to 1), "
            f"got {shown(value)}."
        )
    return float(value)


def rng_of(seed) -> np.random.Generator:
    """A generator for ``seed``: an int >= 0, a ``np.random.Generator`` (used as is), or None (fresh entropy)."""
    if seed is None or isinstance(seed, np.random.Generator) or (_is_int(seed) and seed >= 0):
        return np.random.default_rng(seed)
    raise ValueError(f"seed must be an integer >= 0, a numpy.random.Generator or None, got {shown(seed)}.")


def check_ids_in_vocabulary(prompts: np.ndarray, eos_id: int | None, vocabulary: int) -> None:
    """Refuse prompt ids and an EOS id that the model's first answer shows to lie outside its vocabulary."""
    if int(prompts.max()) >= vocabulary:
        raise ValueError(
            f"prompts hold id {int(prompts.max())}, but next() returned {vocabulary} log-probabilities "
            f"per row (ids 0 to {vocabulary - 1}); encode the prompt with the model's own tokeniser."
        )
    if eos_id is not None and eos_id >= vocabulary:
        raise ValueError(f"eos_id {eos_id} lies outside the model's vocabulary of {vocabulary} ids.")
