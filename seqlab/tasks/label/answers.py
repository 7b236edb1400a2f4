"""A tagger's answers to raw texts (``predict --text``): one row per token read, with its most probable tag."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from seqlab.run_meta import RunMeta
    from seqlab.text import Tokenizer


def tag_answers(meta: RunMeta, tokenizer: Tokenizer, texts: list[str], probabilities: np.ndarray) -> pd.DataFrame:
    """The text's number, each token the model read (its first ``lookback``) and its tag, from ``(N, T, C)``."""
    classes = meta.classes or []
    rows = []
    for n, (text, p) in enumerate(zip(texts, probabilities)):
        for t, token in enumerate(tokenizer.tokens(text)[: meta.lookback]):
            rows.append({"text": n + 1, "token": token, "tag": classes[int(p[t].argmax())]})
    return pd.DataFrame(rows, columns=["text", "token", "tag"])
