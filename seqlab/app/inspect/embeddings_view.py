"""The Embeddings page's parts: which runs have an embedding, its matrix and tokens, the plot, neighbours, equations.

The matrix, its neighbours and which rows to show come from
``seqlab.inspect.embeddings``, the projection from ``seqlab.inspect.pca``, the
figure from ``seqlab.plots``; this module caches them and lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import cache, results
from seqlab.app.results import run_label
from seqlab.data.text_windows import token_counts
from seqlab.inspect import Projection, pca
from seqlab.inspect.embeddings import COSINE_LATEX, EmbeddingMatrix, embedding_matrices, saved_embedding_layers
from seqlab.plots.generated import shown_token
from seqlab.runs import Run
from seqlab.text import PAD, UNK

DEFAULT_POINTS = 300
LABELLED = 100  # points with their token written beside them; more overlap (the rest show it on hover)
DEFAULT_NEIGHBOURS = 10
TRAIN_COMMAND = "python -m seqlab train --dataset pydoc --model lstm --epochs 2"


@dataclass(frozen=True)
class Tokens:
    """The tokens of a run's embedding rows: ``texts`` per id, and ``counts`` in the training text (or ``None``)."""

    texts: list[str]
    counts: np.ndarray | None
    note: str  # where the texts and counts come from


# ---------------------------------------------------------------- cached reads


@st.cache_data(show_spinner=False, max_entries=512)
def _saved_layers(path: str, created: str) -> tuple[list[str], str | None]:
    try:
        return saved_embedding_layers(path), None
    except ValueError as err:
        return [], str(err)


def saved_layers(run: Run) -> tuple[list[str], str | None]:
    """The embedding layers named in the run's ``model.keras`` (read without loading it), and why it is unreadable."""
    return _saved_layers(str(run.keras_path), run.meta.created)


def matrices(run: Run) -> list[EmbeddingMatrix]:
    """Every embedding of the run's model (``seqlab.inspect.embeddings``); raises ``ValueError`` for a bad file."""
    return embedding_matrices(cache.model(run))


@st.cache_data(show_spinner="Projecting on the principal axes…", max_entries=16)
def _projection(path: str, created: str, layer: str, _matrix) -> Projection:
    return pca(_matrix, components=3)  # keyed by run and layer: the matrix itself is not hashed


def projection(run: Run, embedding: EmbeddingMatrix) -> Projection:
    """All rows of the matrix on their first three principal axes: the picture does not move with the cap."""
    return _projection(str(run.path), run.meta.created, embedding.layer, embedding.matrix)


def is_target_side(embedding: EmbeddingMatrix) -> bool:
    """A decoder's own embedding (both decoders name it so): its rows are the target tokeniser's ids."""
    return embedding.layer.rsplit(" / ", 1)[-1] == "target_embedding"


def training_counts(data, target: bool, rows: int) -> np.ndarray:
    """How often each id occurs in the training split (a decoder's: in the target sentences)."""
    if not target and "token_id" in data.frame:
        return token_counts(data)  # a language run: the training text itself, not its overlapping windows
    ids = np.asarray(data.splits["train"].y if target else data.splits["train"].x).astype("int64").ravel()
    return np.bincount(ids[(ids >= 0) & (ids < rows)], minlength=rows)


def tokens(run: Run, embedding: EmbeddingMatrix) -> Tokens:
    """The vocabulary of the run's tokeniser that the embedding's rows index (the target's for a decoder's), and
    the training text's token counts; ids when there is no tokeniser."""
    rows, target = len(embedding.matrix), is_target_side(embedding)
    try:
        vocab = cache.tokenizer_facts(run, "target_tokenizer" if target else "tokenizer")["vocab"]
    except (ValueError, OSError, KeyError):
        return Tokens([f"id {i}" for i in range(rows)], None, "This run has no tokeniser: points are token ids.")
    if len(vocab) != rows:
        return Tokens([f"id {i}" for i in range(rows)], None,
                      f"The tokeniser has {len(vocab):,} tokens but the matrix {rows:,} rows: points are token ids.")
    try:
        data = cache.dataset(run.spec["dataset"], run.spec.get("data_options", {}))
        counts = training_counts(data, target, rows)
    except (KeyError, ValueError, RuntimeError, OSError) as err:
        return Tokens(vocab, None, f"Token counts unknown (cannot load the run's dataset: {err}): id order.")
    side = "target sentences" if target else "text"
    return Tokens(vocab, counts, f"Most frequent tokens of the training {side} first.")


# ---------------------------------------------------------------- which run


def how_to_train() -> None:
    st.markdown(
        "A recurrent language model (**LSTM**, **GRU**, **Elman RNN**) learns an embedding of every token as its "
        "input layer, and so does the notes' **Neural language model**. On the **Train** page pick the **pydoc** "
        "dataset (Python's own help text, always here) and one of them, or from a terminal: "
        f"`{TRAIN_COMMAND}` (or `--model neural_lm`). A Markov chain or an HMM counts tokens directly and has none."
    )
    st.page_link("pages/train.py", label="Train a language model", icon=":material/model_training:")


def explain_no_embedding(runs: list[Run]) -> None:
    with st.container(border=True):
        st.markdown("#### No run with an embedding")
        if runs:
            models = sorted({results.model_title(r.meta.model) for r in runs})
            st.markdown(f"None of the {len(runs)} saved run(s) has an embedding layer (models: {', '.join(models)}).")
        else:
            st.markdown("There are no trained runs yet.")
        how_to_train()


def pick_run(runs: list[Run], others: list[Run]) -> Run:
    """A chooser over the runs with an embedding; a caption names how many runs have none."""
    by_id = {r.run_id: r for r in runs}
    run_id = st.selectbox("Run", list(by_id), key="embeddings.run", format_func=lambda i: run_label(by_id[i]),
                          help="Runs whose model has an embedding layer (recurrent and neural language models).")
    if others:
        models = sorted({results.model_title(r.meta.model) for r in others})
        st.caption(f"{len(others)} other run(s) have no embedding ({', '.join(models)}): not listed.")
    return by_id[run_id]


def pick_embedding(found: list[EmbeddingMatrix], run_id: str) -> EmbeddingMatrix:
    if len(found) == 1:
        return found[0]
    by_layer = {e.layer: e for e in found}
    layer = st.selectbox("Embedding layer", list(by_layer), key=f"embeddings.layer.{run_id}")
    return by_layer[layer]


# ---------------------------------------------------------------- controls


def token_label(texts: list[str], i: int) -> str:
    return f"{shown_token(texts[i])}  (id {i})"


def token_code(token: str) -> str:
    """A token as inline code in markdown (a token "*" or "$" must not become emphasis or maths)."""
    code = shown_token(token)
    return f"`` {code} ``" if "`" in code else f"`{code}`"


def controls(embedding: EmbeddingMatrix, toks: Tokens, order: np.ndarray, run_id: str) -> tuple[int, int, int, int]:
    """Dimensions (2 or 3), points shown, the chosen token id and the number of neighbours."""
    rows = len(embedding.matrix)
    a, b, c, d = st.columns([1, 1, 2, 1])
    dims = a.radio("Projection", (2, 3), key="embeddings.dims", horizontal=True, format_func=lambda k: f"{k}-D")
    cap = b.number_input("Points shown", 1, rows, min(DEFAULT_POINTS, rows), step=50,
                         key=f"embeddings.cap.{run_id}", help=toks.note)  # fmt: skip
    nonzero = np.linalg.norm(embedding.matrix, axis=1) > 0  # a zero vector has no cosine neighbours
    options = [int(i) for i in order if nonzero[i]]
    default = next((i for i in options if toks.texts[i] not in (PAD, UNK)), options[0])
    token = c.selectbox("Token", options, index=options.index(default), key=f"embeddings.token.{run_id}",
                        format_func=lambda i: token_label(toks.texts, i),
                        help="Its nearest tokens by cosine are listed and ringed in the plot.")  # fmt: skip
    k = d.number_input("Neighbours", 1, max(rows - 1, 1), min(DEFAULT_NEIGHBOURS, max(rows - 1, 1)),
                       key="embeddings.k")  # fmt: skip
    return int(dims), int(cap), int(token), int(k)


# ---------------------------------------------------------------- beside the plot


def equations_panel(embedding: EmbeddingMatrix) -> None:
    """The encoding's equations from its layer's docstring, and the cosine the neighbours are ranked by."""
    names = {"A": "one-hot", "B": "given vectors", "C": "learned"}
    with st.container(border=True):
        st.markdown(f"**Encoding {embedding.encoding} ({names[embedding.encoding]}): `{embedding.kind}`**")
        for block in embedding.equations:
            block = block.replace(r"\qquad", r"\\")  # one equation a line: they fit beside the plot
            st.latex(r"\footnotesize \begin{gathered} " + block + r" \end{gathered}")
        st.markdown(
            r"The embedding of token $i$ is column $i$ of $A$, $\mathbf{a}_i \in \mathbb{R}^r$: each point of the "
            r"plot is one column, projected on the principal axes of all of them. Neighbours are ranked by"
        )
        st.latex(r"\footnotesize " + COSINE_LATEX)
        st.caption("From the encoding's docstring (`seqlab.layers.embedding`) and `seqlab.inspect.embeddings`: "
                   "the code that computed the numbers.")


def neighbours_table(ids: np.ndarray, cosines: np.ndarray, toks: Tokens, key: str = "embeddings.neighbours") -> None:
    table = pd.DataFrame({
        "token": [shown_token(toks.texts[i]) for i in ids],
        "id": ids,
        "cosine": cosines,
        **({"count": toks.counts[ids]} if toks.counts is not None else {}),
    })  # fmt: skip
    st.dataframe(
        table, hide_index=True, width="stretch", key=key,
        column_config={
            "cosine": st.column_config.ProgressColumn(
                "cosine", format="%.3f", min_value=-1.0, max_value=1.0,
                help="cos(aᵢ, aⱼ): 1 the same direction, 0 orthogonal, -1 opposite",
            ),
            "count": st.column_config.NumberColumn("count", help="Times the token occurs in the training text."),
        },
    )  # fmt: skip
