"""The model families of the lecture notes, for the Home page.

A family is the ``Architecture.family`` of some registered architecture, and
what it teaches is its architectures' ``Architecture.teaches``: the app keeps no
second list of what exists. The notes also teach ideas that are an option of
other models (attention scores, positions) or a way of using any model (a
multi-step strategy, a task's shape); those rows are here, each available when
some model has the option or the mechanism exists.
"""

from __future__ import annotations

import pandas as pd

from seqlab.data import list_datasets
from seqlab.models import list_architectures

# Families the notes teach as a variation of other architectures or datasets: available when
# some architecture or dataset has the option, described with the titles of those that do.
AS_OPTION: dict[str, tuple[str, str, str]] = {  # family: (what the notes teach, the option, train it as)
    "Tokenisation": ("standardisation; word, character and subword (BPE) vocabularies; OOV",
                     "tokenizer", "the tokenizer option (char, word, bpe) of {titles}"),
    "Embeddings": ("one-hot, given and learned embedding vectors; their projections",
                   "embedding_dim", "the learned embedding (C) of every text model on {titles}"),
    "Bidirectional RNN": ("forward and backward states side by side",
                          "bidirectional", "the bidirectional option of {titles}"),
    "Gradient problems": (
        "vanishing and exploding gradients through time; clipping",
        "identity_init", "{titles} with identity_init (IRNN); clip_norm, clip_value; ‖∂L/∂h_t‖ on Inspect",
    ),
    "Bahdanau attention": ("additive (MLP) score over a bidirectional encoder",
                           "attention", "{titles} with attention=bahdanau (and bidirectional=true)"),
    "Luong attention": ("dot, general and concat scores; local-p attention",
                        "attention", "{titles} with attention=luong (score dot, general, concat) or local "
                                     "(local-m, or local-p with predictive=true)"),
    "Self-attention": (r"queries, keys, values; $\mathrm{softmax}(q^\top k / \sqrt{d_k})$; multi-head",
                       "heads", "the multi-head self-attention of {titles} (heads; multi_head split or full)"),
    "Positional encoding": ("sinusoidal and learned positions",
                            "positions", "the positions option (sinusoidal with base n, learned, none) of {titles}"),
    "Beyond text": ("images as sequences of patches; graph attention",
                    "patch_size", "{titles}: an image read as a sequence of patches"),
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
AS_FEATURE = {  # family: (what the notes teach, what has it now)
    "Multi-step prediction": ("direct and iterated forecasts; Monte-Carlo simulation with noise", _strategies),
    "Task shapes": ("one-to-one, many-to-one, one-to-many, many-to-many", _task_shapes),
}


def _as_option(option: str, text: str, owners) -> list[str]:
    titles = [owner.title for owner in owners if option in owner.defaults]
    return [text.format(titles=", ".join(titles))] if titles else []


def architecture_families() -> dict[str, tuple[list[str], list[str]]]:
    """Each family of the registered architectures, in the registry's order: what its architectures teach
    (each line once) and their titles."""
    families: dict[str, tuple[list[str], list[str]]] = {}
    for arch in list_architectures():
        teaches, titles = families.setdefault(arch.family, ([], []))
        if arch.teaches not in teaches:
            teaches.append(arch.teaches)
        titles.append(arch.title)
    return families


def families_table() -> pd.DataFrame:
    """One row per family: what it teaches, whether it can be trained now, and as what.

    The architectures' families first, then the ideas taught as an option of them, then the ways of using any
    model."""
    owners = [*list_architectures(), *list_datasets()]
    rows = [(family, "; ".join(teaches), titles) for family, (teaches, titles) in architecture_families().items()]
    rows += [(family, teaches, _as_option(option, text, owners))
             for family, (teaches, option, text) in AS_OPTION.items()]
    rows += [(family, teaches, available()) for family, (teaches, available) in AS_FEATURE.items()]
    return pd.DataFrame(
        [{"Family": family, "What the notes teach": teaches, "Available": bool(titles),
          "Train it as": ", ".join(titles) if titles else "planned"} for family, teaches, titles in rows]
    )


AVAILABLE = ":material/check_circle:"  # an icon of the app's font: emoji need a font the machine may lack


def families_markdown(table: pd.DataFrame) -> str:
    """``families_table`` as a Markdown table, so the notes' equations render (a dataframe shows them raw)."""
    lines = ["| Family | What the notes teach | Available now | Train it as |", "| --- | --- | :---: | --- |"]
    for row in table.itertuples(index=False):
        lines.append(f"| **{row[0]}** | {row[1]} | {AVAILABLE if row[2] else '—'} | {row[3]} |")
    return "\n".join(lines)
