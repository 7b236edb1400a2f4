"""The k most probable ids of each row, with one tie rule for every decoder.

Greedy's argmax, top-k, top-p, beam search and the alternatives shown beside a
token all rank through ``top_ids``, so ``top_k=1``, a tiny ``top_p`` and a beam
of width 1 pick exactly the token greedy picks, ties included.
"""

from __future__ import annotations

import numpy as np


def top_ids(values: np.ndarray, k: int) -> np.ndarray:
    """Ids of the ``k`` largest entries of each row, largest first, ties to the lower id.

    Args:
        values: ``(rows, n)`` numbers without NaN (``-inf`` allowed).
        k: how many per row; more than ``n`` gives all ``n``.

    Returns:
        ``(rows, min(k, n))`` int64 ids.
    """
    rows, n = values.shape
    k = min(k, n)
    if k == 0:
        return np.zeros((rows, 0), dtype=np.int64)
    if k < n:
        # O(n) selection instead of a full sort: 50k-token vocabularies, every step.
        kth = np.partition(values, n - k, axis=-1)[:, n - k : n - k + 1]  # the k-th largest
        above = values > kth
        tied = values == kth
        room = k - above.sum(axis=-1, keepdims=True)
        keep = above | (tied & (np.cumsum(tied, axis=-1) <= room))  # the lowest tied ids fill up
        ids = np.nonzero(keep)[1].reshape(rows, k)  # ascending ids, exactly k per row
    else:
        ids = np.broadcast_to(np.arange(n), (rows, n))
    order = np.argsort(-np.take_along_axis(values, ids, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(ids, order, axis=-1).astype(np.int64)
