"""The model families of the lecture notes, for the Home page.

A family is "available now" when an architecture in the registry names it as
its ``Architecture.family``; the app never keeps a second list of what exists.
"""

from __future__ import annotations

import pandas as pd

from seqlab.data import list_datasets
from seqlab.models import list_architectures

# (family, what the notes teach): in the order of the lecture notes.
FAMILIES: tuple[tuple[str, str], ...] = (
    ("Markov chains", "first- and second-order chains over tokens; likelihood; sampling"),
    ("Hidden Markov model", r"joint $p(x, z)$; forward algorithm, Viterbi, Baum-Welch (EM) training"),
    ("NARX / TDNN", r"$\hat y_t = f(y_{t-1}, \dots, y_{t-T}, x_{t-1}, \dots, x_{t-T})$; the same net at every step; "
                    "residual form"),
    ("Multi-step prediction", "direct and iterated forecasts; Monte-Carlo simulation with noise"),
    ("Embeddings", "one-hot, given and learned embedding vectors; their projections"),
    ("Tokenisation", "standardisation; word, character and subword (BPE) vocabularies; OOV"),
    ("Neural language model", "softmax over the next word from the last $T$ words"),
    ("Elman RNN", r"$z_t = \sigma(B z_{t-1} + V x_t)$, $y_t = \sigma(W z_t)$; BPTT and truncated BPTT"),
    ("Gradient problems", "vanishing and exploding gradients through time; clipping"),
    ("Echo state network", r"random fixed reservoir, spectral radius $\rho(W) < 1$; only the read-out is trained"),
    ("Bidirectional RNN", "forward and backward states side by side"),
    ("LSTM", r"forget, input and output gates $f_t, i_t, o_t$ with a cell state $c_t$"),
    ("GRU", r"update and reset gates $u_t, r_t$"),
    ("CNN over sequences", "1-D convolution with zero padding; dilated causal convolutions (TCN)"),
    ("State-space model", r"$x_t = \bar A x_{t-1} + \bar B u_t$, $y_t = C x_t + D u_t$: a long convolution to train, "
                          "a recurrence to step; selective (Mamba)"),
    ("Task shapes", "one-to-one, many-to-one, one-to-many, many-to-many"),
    ("Encoder-decoder", "context vector, teacher forcing, greedy and beam search"),
    ("Bahdanau attention", "additive (MLP) score over a bidirectional encoder"),
    ("Luong attention", "dot, general and concat scores; local-p attention"),
    ("Self-attention", r"queries, keys, values; $\mathrm{softmax}(q^\top k / \sqrt{d_k})$; multi-head"),
    ("Positional encoding", "sinusoidal and learned positions"),
    ("Transformer", "encoder and decoder blocks, residual + LayerNorm, masks"),
    ("BERT", "encoder-only; masked LM, next-sentence prediction, [CLS]"),
    ("GPT", "decoder-only causal LM; greedy, temperature and top-k sampling"),
    ("Beyond text", "images as sequences of patches; graph attention"),
)


# Families the notes teach as a variation of other architectures or datasets: available when
# some architecture or dataset has the option, described with the titles of those that do.
AS_OPTION: dict[str, tuple[str, str]] = {
    "Tokenisation": ("tokenizer", "the tokenizer option (char, word, bpe) of {titles}"),
    "Embeddings": ("embedding_dim", "the learned embedding (C) of every text model on {titles}"),
    "Bidirectional RNN": ("bidirectional", "the bidirectional option of {titles}"),
    "Gradient problems": (
        "identity_init",
        "{titles} with identity_init (IRNN); clip_norm, clip_value; ‖∂L/∂h_t‖ on Inspect",
    ),
    "Bahdanau attention": ("attention", "{titles} with attention=bahdanau (and bidirectional=true)"),
    "Luong attention": ("attention", "{titles} with attention=luong (score dot, general, concat) or local "
                                     "(local-m, or local-p with predictive=true)"),
    "Self-attention": ("heads", "the multi-head self-attention of {titles} (heads; multi_head split or full)"),
    "Positional encoding": ("positions", "the positions option (sinusoidal with base n, learned, none) of {titles}"),
    "Beyond text": ("patch_size", "{titles}: an image read as a sequence of patches"),
}


def _strategies() -> list[str]:
    from seqlab.forecasting.strategy_catalogue import STRATEGIES

    titles = [s.title for s in STRATEGIES.list()]
    return [f"any forecast run on the Forecast page or with seqlab forecast: {', '.join(titles)}"] if titles else []


# The notes' task shapes, and the task that has each.
SHAPES = {"classify": "many-to-one (classify)", "label": "many-to-many aligned (label)",
          "translate": "many-to-many and one-to-many (translate; digit_names captions an image)"}


def _task_shapes() -> list[str]:
    tasks = {info.task for info in list_datasets()}
    return [shape for task, shape in SHAPES.items() if task in tasks]


# Families the notes teach as a way of using any model of a task: available when that mechanism exists.
AS_FEATURE = {"Multi-step prediction": _strategies, "Task shapes": _task_shapes}


def _as_option(family: str, owners) -> list[str]:
    option, text = AS_OPTION[family]
    titles = [owner.title for owner in owners if option in owner.defaults]
    return [text.format(titles=", ".join(titles))] if titles else []


def families_table() -> pd.DataFrame:
    """One row per family: what it teaches, whether it can be trained now, and as what."""
    archs = list_architectures()
    by_family: dict[str, list[str]] = {}
    for arch in archs:
        by_family.setdefault(arch.family.casefold(), []).append(arch.title)
    rows = []
    for family, teaches in FAMILIES:
        owners = [*archs, *list_datasets()]
        if family in AS_FEATURE:
            titles = AS_FEATURE[family]()
        elif family in AS_OPTION:
            titles = _as_option(family, owners)
        else:
            titles = by_family.get(family.casefold(), [])
        rows.append(
            {
                "Family": family,
                "What the notes teach": teaches,
                "Available": bool(titles),
                "Train it as": ", ".join(titles) if titles else "planned",
            }
        )
    return pd.DataFrame(rows)


AVAILABLE = ":material/check_circle:"  # an icon of the app's font: emoji need a font the machine may lack


def families_markdown(table: pd.DataFrame) -> str:
    """``families_table`` as a Markdown table, so the notes' equations render (a dataframe shows them raw)."""
    lines = ["| Family | What the notes teach | Available now | Train it as |", "| --- | --- | :---: | --- |"]
    for row in table.itertuples(index=False):
        lines.append(f"| **{row[0]}** | {row[1]} | {AVAILABLE if row[2] else '—'} | {row[3]} |")
    return "\n".join(lines)
