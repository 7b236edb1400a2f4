"""A classifier's answers to raw texts (``predict --text``): one row per text, its class and every probability."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from seqlab.run_meta import RunMeta
    from seqlab.text import Tokenizer


def class_answers(meta: RunMeta, tokenizer: Tokenizer, texts: list[str], probabilities: np.ndarray) -> pd.DataFrame:
    """The text, the most probable class and ``p(class)`` of every class, from the ``(N, C)`` probabilities."""
    classes = meta.classes or []
    table = pd.DataFrame(probabilities, columns=[f"p({c})" for c in classes])
    table.insert(0, "class", [classes[i] for i in probabilities.argmax(axis=1)])
    table.insert(0, "text", list(texts))
    return table
