"""Views of translate runs: pairs in, translations out.

Registered for the ``translate`` task: the Data page's preview (each split's
pairs and vocabularies, the token lengths of sources and targets (the lookback
S and the horizon L come from them), and the first test pairs decoded from the
ids the model trains on, so a trimmed source or an ``[UNK]`` shows); the test
split's translations beside the references; the SavedModel's teacher-forced
answer for a test pair; and the one-line descriptions of a run and a plan.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app.task_views import DATA_PREVIEWS, OUTPUT_TEXT, PLAN_TEXT, PREDICTIONS, SERVING, view_for
from seqlab.data import DatasetInfo, SequenceData
from seqlab.runs import Run
from seqlab.tasks.translate import target_text as translation_text
from seqlab.text import PAD_ID

EXAMPLES = 12  # test pairs shown


def as_decoder_writes(data: SequenceData, ids) -> str:
    """A target row's text as the decoder must write it, ``[EOS]`` included, padding left out."""
    return data.target_tokenizer.decode(ids[ids != PAD_ID])


@view_for(DATA_PREVIEWS, "translate")
def pairs_preview(info: DatasetInfo, data: SequenceData) -> None:
    """Pairs and token lengths per split, both vocabularies, and the first test pairs as encoded."""
    steps = {name: (split.mask.sum(axis=1) if split.mask is not None else np.full(len(split), data.lookback))
             for name, split in data.splits.items()}  # a source of numbers has no padding
    lengths = {
        name: {
            "pairs": len(split),
            "source steps (mean)": steps[name].mean(),
            "source steps (max)": steps[name].max(),
            "target tokens + EOS (mean)": (split.y != PAD_ID).sum(axis=1).mean(),
            "target tokens + EOS (max)": (split.y != PAD_ID).sum(axis=1).max(),
        }
        for name, split in data.splits.items()
    }
    source = (f"{data.tokenizer.kind} tokens, vocabulary {data.tokenizer.vocab_size:,}" if data.tokenizer is not None
              else f"{data.lookback} steps of {len(data.features)} numbers")
    st.markdown(
        f"**Pairs and lengths in each split** (source: {source}; target: {data.target_tokenizer.kind} tokens, "
        f"vocabulary {data.target_tokenizer.vocab_size:,}, fitted on the training pairs only)"
    )
    st.dataframe(pd.DataFrame(lengths).T, width="stretch", column_config={
        c: st.column_config.NumberColumn(format="%.1f") for c in ("source steps (mean)", "target tokens + EOS (mean)")
    })  # fmt: skip
    test = data.splits["test"]
    rows = np.arange(min(EXAMPLES, len(test)))
    table = pd.DataFrame({
        "source": data.frame["source"].iloc[test.origin[rows]].to_numpy(),
        **({"source (as the encoder reads it)": [data.tokenizer.decode(test.x[i]) for i in rows]}
           if data.tokenizer is not None else {}),
        "target (as the decoder writes it)": [as_decoder_writes(data, test.y[i]) for i in rows],
    })  # fmt: skip
    st.markdown(f"**The first {len(rows)} test pairs** (sources of at most S = {data.lookback} tokens, "
                f"targets of at most L = {data.horizon} with their [EOS])")  # fmt: skip
    st.dataframe(table, hide_index=True, width="stretch")


@view_for(PREDICTIONS, "translate")
def translations_view(run: Run, preds: dict, data: SequenceData, key: str) -> None:
    """Test sources, their references and the model's greedy translations; the wrong ones first."""
    test, target = data.splits["test"], data.target_tokenizer
    references = [translation_text(target, row) for row in preds["y_true"]]
    written = [translation_text(target, row) for row in preds["y_pred"]]
    right = np.array([a == b for a, b in zip(references, written)], dtype=bool)
    order = np.concatenate([np.flatnonzero(~right), np.flatnonzero(right)])[:EXAMPLES]
    st.markdown(f"**Test translations** (greedy): {int(right.sum()):,} of {len(right):,} exactly right; "
                + ("the wrong ones first" if (~right).any() else "every one right"))
    st.dataframe(pd.DataFrame({
        "source": data.frame["source"].iloc[test.origin[order]].to_numpy(),
        "reference": [references[i] for i in order],
        "model": [written[i] for i in order],
        "right": right[order],
    }), hide_index=True, width="stretch", key=f"{key}.translations")  # fmt: skip
    st.page_link("pages/translate.py", label="Translate your own text, with the attention map and a beam search",
                 icon=":material/translate:")


@view_for(SERVING, "translate")
def served_pair(run: Run, data: SequenceData, i: int, served, stored, key: str) -> list:
    """Test pair ``i``: the SavedModel's most probable token at every step, given the reference's tokens before it."""
    test, target = data.splits["test"], data.target_tokenizer
    choices = np.asarray(served).argmax(axis=-1)  # (L,): teacher-forced next-token choices
    real = test.y[i] != PAD_ID
    st.markdown(f"> {data.frame['source'].iloc[int(test.origin[i])]}")
    right = int((choices[real] == test.y[i][real]).sum())
    return [("Reference", translation_text(target, test.y[i])),
            ("SavedModel, teacher-forced", translation_text(target, np.where(real, choices, PAD_ID))),
            ("Tokens right, given the ones before", f"{right} of {int(real.sum())}")]


view_for(OUTPUT_TEXT, "translate")(lambda meta: "the target sequence, token by token")


@view_for(PLAN_TEXT, "translate")
def _translation_plan(facts: dict, target: str, features: str) -> str:
    return (f"Read a source of up to {facts['lookback']} steps (tokens of a text, rows of an image); write its "
            f"{target} token by token, up to "
            f"{facts['horizon'] - 1} and [EOS] (teacher forcing in training, greedy on the test split).")
