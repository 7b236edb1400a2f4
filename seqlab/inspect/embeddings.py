r"""A model's embedding matrix, its nearest neighbours by cosine, and which rows to show.

Seeds 004 and 000 encode token $i$ three ways: one-hot (A), given vectors (B) and
learned vectors (C, $V = \tilde{V} A$). In each, the embedding of token $i$ is
column $i$ of the matrix $A$; Keras keeps $A^\top$, so here row $i$ of an
``(N_words, r)`` array is $\mathbf{a}_i$. ``EMBEDDINGS`` says, per layer class,
how to read that matrix and which encoding it is; ``embedding_matrices`` walks a
loaded model, ``saved_embedding_layers`` reads a ``.keras`` config without
loading it (to list the runs that have one).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import keras
import numpy as np

from seqlab.keras_file import check_config, read_config, resolve
from seqlab.layers.docs import equations
from seqlab.layers.embedding import GivenEmbedding, LearnedEmbedding, OneHot
from seqlab.layers.language import NeuralLanguageModel

# The cosine similarity that `cosine_neighbours` computes, for the app to show beside it.
COSINE_LATEX = (
    r"\cos(\mathbf{a}_i, \mathbf{a}_j) = \frac{\mathbf{a}_i^\top \mathbf{a}_j}"
    r"{\lVert \mathbf{a}_i \rVert \, \lVert \mathbf{a}_j \rVert}"
)


@dataclass(frozen=True)
class Encoding:
    """How to read a layer class's matrix (``read(layer) -> (N_words, r)``), the seeds' letter, whose docstring."""

    read: Callable[[keras.layers.Layer], np.ndarray]
    letter: str
    documented: type  # whose docstring `Equations:` describe this encoding


def _learned(layer) -> np.ndarray:
    return np.asarray(layer.embedding_matrix)


# Looked up along a class's MRO, so the nearest registered base wins: GivenEmbedding is B, not C.
EMBEDDINGS: dict[type, Encoding] = {
    # keras.layers.Embedding computes what LearnedEmbedding (C) computes with the same matrix.
    keras.layers.Embedding: Encoding(lambda layer: np.asarray(layer.embeddings), "C", LearnedEmbedding),
    LearnedEmbedding: Encoding(_learned, "C", LearnedEmbedding),
    GivenEmbedding: Encoding(_learned, "B", GivenEmbedding),
    OneHot: Encoding(lambda layer: np.eye(layer.vocabulary_size, dtype="float32"), "A", OneHot),
    NeuralLanguageModel: Encoding(_learned, "C", LearnedEmbedding),  # its own learned embedding
}


def encoding_of(cls: type) -> Encoding | None:
    """The registered encoding of a layer class (or of its nearest registered base), ``None`` if none."""
    return next((EMBEDDINGS[base] for base in getattr(cls, "__mro__", ()) if base in EMBEDDINGS), None)


@dataclass(frozen=True)
class EmbeddingMatrix:
    """One embedding of a model.

    Attributes:
        layer: the layer's name, nested names joined by " / " (e.g. ``next_token / neural_lm``).
        kind: the layer's class name.
        encoding: the seeds' letter: ``"A"`` one-hot, ``"B"`` given, ``"C"`` learned.
        matrix: ``(N_words, r)`` float64, row i the embedding ``a_i`` of token id i.
        equations: LaTeX blocks of the encoding's docstring (``seqlab.layers.docs``).
    """

    layer: str
    kind: str
    encoding: str
    matrix: np.ndarray
    equations: list[str]


def _children(layer) -> list:
    """The layers inside ``layer``: a model's ``layers``, a wrapper's (``TimeDistributed``) ``layer``, a layer's
    sub-layers (its attributes that hold a layer or a list of them: a Transformer decoder's embedding and blocks;
    there ``layers`` is a count)."""
    if isinstance(layer, keras.layers.Wrapper):
        return [layer.layer]
    if isinstance(layer, keras.Model):
        return list(layer.layers)
    held = [item for value in vars(layer).values() for item in (value if isinstance(value, (list, tuple)) else [value])]
    return [item for item in held if isinstance(item, keras.layers.Layer)]  # one held twice: read once, by the walk


def embedding_matrices(model: keras.Model) -> list[EmbeddingMatrix]:
    """Every embedding in ``model`` (layers registered in ``EMBEDDINGS``), in layer order; empty if none."""
    found: list[EmbeddingMatrix] = []
    pending = [(child, child.name) for child in _children(model)]
    seen = set()
    while pending:  # depth first, in layer order
        layer, name = pending.pop(0)
        if id(layer) in seen:  # a layer shared by two parents (or named twice by one) is read once
            continue
        seen.add(id(layer))
        encoding = encoding_of(type(layer))
        if encoding is None:
            pending[:0] = [(child, f"{name} / {child.name}") for child in _children(layer)]
            continue
        found.append(EmbeddingMatrix(
            layer=name, kind=type(layer).__name__, encoding=encoding.letter,
            matrix=np.asarray(encoding.read(layer), dtype="float64"), equations=equations(encoding.documented),
        ))  # fmt: skip
    return found


def embedding_matrix(model: keras.Model) -> EmbeddingMatrix:
    """The model's (first) embedding; ``ValueError`` naming the model when it has none."""
    found = embedding_matrices(model)
    if not found:
        raise ValueError(
            f"Model {model.name!r} has no embedding layer (keras.layers.Embedding or one of "
            f"{', '.join(sorted(cls.__name__ for cls in EMBEDDINGS if cls is not keras.layers.Embedding))}): "
            "a Markov chain or HMM counts tokens directly. Train a recurrent or neural language model."
        )
    return found[0]


def saved_embedding_layers(path: str | os.PathLike) -> list[str]:
    """Names of the embedding layers in a ``.keras`` file, read from its config without loading the model.

    Raises ``ValueError`` for a file that is not a readable ``.keras`` archive or
    that names a class seqlab does not load (see ``seqlab.keras_file``).
    """
    config = read_config(path)
    check_config(config)
    found: list[str] = []
    pending = [(child, "") for child in _config_children(config)]
    while pending:  # a loop, not recursion: a deeply nested file cannot exhaust the stack
        entry, prefix = pending.pop(0)
        name = prefix + str(_body(entry).get("name", entry.get("class_name", "?")))
        if encoding_of(resolve(entry)) is not None:
            found.append(name)
        else:
            pending[:0] = [(child, f"{name} / ") for child in _config_children(entry)]
    return found


def _body(entry: dict) -> dict:
    config = entry.get("config")
    return config if isinstance(config, dict) else {}


def _config_children(entry: dict) -> list[dict]:
    """The layer entries inside a config entry: a model's ``layers``, a wrapper's ``layer``."""
    body = _body(entry)
    layers = body.get("layers") if isinstance(body.get("layers"), list) else []
    inner = [body["layer"]] if isinstance(body.get("layer"), dict) else []
    return [child for child in [*layers, *inner] if isinstance(child, dict)]


def cosine_neighbours(matrix: np.ndarray, token: int, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows of ``matrix`` nearest to row ``token`` by cosine (``COSINE_LATEX``), nearest first.

    The token itself comes first (cosine 1); ties keep id order. A zero row has
    no direction: its cosine with anything is 0, and asking for its neighbours
    is a ``ValueError``.

    Returns:
        ``(ids, cosines)``, each of length ``min(k, N_words)``.
    """
    a = np.asarray(matrix, dtype="float64")
    if a.ndim != 2:
        raise ValueError(f"The embedding matrix must have shape (N_words, r), got {a.shape}.")
    if not 0 <= token < len(a):
        raise ValueError(f"Token id {token} is outside the vocabulary (ids 0 to {len(a) - 1}).")
    norms = np.linalg.norm(a, axis=1)
    if norms[token] == 0:
        raise ValueError(f"Token id {token} has the zero vector, whose cosine is undefined: pick another token.")
    cosines = (a @ a[token]) / np.where(norms > 0, norms * norms[token], 1.0)  # 0 for zero rows
    cosines[token] = 1.0  # exactly, not 1 - 1e-16
    others = np.argsort(-np.delete(cosines, token), kind="stable")
    others = others + (others >= token)  # back to ids after the deletion
    ids = np.concatenate([[token], others])[: max(k, 0)]
    return ids, cosines[ids]


def shown_tokens(vocab_size: int, cap: int, counts: np.ndarray | None = None) -> np.ndarray:
    """The ids of the at most ``cap`` tokens to plot: most frequent first when ``counts`` are known, else id order."""
    if cap < 1:
        raise ValueError(f"The number of points shown must be at least 1, got {cap}.")
    if counts is None:
        return np.arange(min(cap, vocab_size))
    counts = np.asarray(counts)
    if counts.shape != (vocab_size,):
        raise ValueError(f"counts must have one entry per token ({vocab_size}), got shape {counts.shape}.")
    return np.argsort(-counts, kind="stable")[:cap]
