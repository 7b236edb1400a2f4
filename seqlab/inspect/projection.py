"""A 2-D picture of a state trajectory: principal component analysis by SVD."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Projection:
    """States projected on their first principal components.

    Attributes:
        points: ``(T, k)``, the centred states in the principal axes (PC1, PC2, ...).
        explained: ``(k,)``, the share of the variance along each axis (0..1).
        components: ``(k, units)``, the principal axes.
        mean: ``(units,)``, the mean state that was subtracted.
    """

    points: np.ndarray
    explained: np.ndarray
    components: np.ndarray
    mean: np.ndarray


def pca(states: np.ndarray, components: int = 2) -> Projection:
    """Project ``states`` ``(T, units)`` on its first ``components`` principal axes.

    The axes are the right singular vectors of the centred states; each sign is
    fixed so that the largest loading is positive (the same states always give
    the same picture). With fewer units or steps than ``components``, the
    missing axes are zero.
    """
    h = np.asarray(states, dtype="float64")
    if h.ndim != 2:
        raise ValueError(f"states must have shape (T, units), got {h.shape}.")
    h = np.nan_to_num(h)
    mean = h.mean(axis=0)
    centred = h - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)  # centred = U S V^T
    k = min(components, vt.shape[0])
    signs = np.sign(vt[np.arange(k), np.abs(vt[:k]).argmax(axis=1)])
    signs[signs == 0] = 1.0
    axes = vt[:k] * signs[:, None]  # (k, units)
    total = float((s**2).sum())
    explained = (s[:k] ** 2) / total if total > 0 else np.zeros(k)
    points = centred @ axes.T  # (T, k)
    if k < components:
        points = np.pad(points, ((0, 0), (0, components - k)))
        explained = np.pad(explained, (0, components - k))
        axes = np.pad(axes, ((0, components - k), (0, 0)))
    return Projection(points=points, explained=explained, components=axes, mean=mean)
