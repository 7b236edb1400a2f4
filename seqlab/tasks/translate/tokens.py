"""A translation run's two tokenisers and its inputs: the source ids and the decoder's teacher-forced ids.

The run keeps both tokenisers: ``tokenizer.json`` for a text source,
``target_tokenizer.json`` for the target, whose vocabulary starts with
``[START]`` and ``[EOS]`` after the padding and ``[UNK]``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from seqlab.bounded_json import TOKENIZER_BYTES, read_json
from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_pairs import EOS_ID, START_ID, TARGET_SPECIALS
from seqlab.tasks.numeric import InputSpec
from seqlab.tasks.text_inputs import TOKENIZER_FILE, load_tokenizer, save_tokenizer
from seqlab.text import PAD_ID, Tokenizer

TARGET_TOKENIZER_FILE = "target_tokenizer.json"


def target_tokenizer_of(data: SequenceData) -> Tokenizer:
    if data.target_tokenizer is None or data.target_tokenizer.specials[2:] != TARGET_SPECIALS:
        raise ValueError(f"Dataset {data.name!r} has no target tokeniser with [START] and [EOS]: a translation "
                         "dataset fits one on the training targets (seqlab.data.text_pairs).")
    return data.target_tokenizer


def translate_inputs(data: SequenceData) -> tuple[InputSpec, ...]:
    """The source's ``S`` ids (or ``S`` steps of ``F`` numbers) and the decoder's ``L`` teacher-forced ids."""
    source = InputSpec("source", (data.lookback,), "int32") if data.tokenizer is not None else \
        InputSpec("source", (data.lookback, len(data.features)), "float32")  # fmt: skip
    return source, InputSpec("target_in", (data.horizon,), "int32")


def target_text(target: Tokenizer, ids) -> str:
    """The text of target ids up to the first ``[EOS]`` (padding and specials left out)."""
    ids = list(np.asarray(ids).tolist())
    ids = ids[: ids.index(EOS_ID)] if EOS_ID in ids else ids
    return target.decode([i for i in ids if i not in (PAD_ID, START_ID)])


def as_target_ids(target: Tokenizer, text: str, length: int) -> np.ndarray:
    """``text`` as target ids laid out like ``y``: its tokens, ``[EOS]``, padding (trimmed to ``length``)."""
    [ids], _ = target.pad_and_mask([target.encode(text) + [EOS_ID]], length)
    return ids


def save_tokenizers(folder: Path, data: SequenceData) -> list[str]:
    """The source tokeniser (``tokenizer.json``, a text source's) and the target one (``target_tokenizer.json``)."""
    text = json.dumps(target_tokenizer_of(data).to_dict(), indent=1, ensure_ascii=False)
    (Path(folder) / TARGET_TOKENIZER_FILE).write_text(text, encoding="utf-8")
    return [*(save_tokenizer(folder, data) if data.tokenizer is not None else []), TARGET_TOKENIZER_FILE]


def load_tokenizers(folder: Path) -> dict:
    """``{"tokenizer": source (None for a source of numbers), "target_tokenizer": target}``."""
    path = Path(folder) / TARGET_TOKENIZER_FILE
    if not os.path.lexists(path):
        raise ValueError(f"{path} is missing: a translation run keeps its target tokeniser there; train the run "
                         "again.")
    try:
        target = Tokenizer.from_dict(read_json(path, TARGET_TOKENIZER_FILE, TOKENIZER_BYTES))
    except ValueError as err:
        raise ValueError(f"{path} is damaged ({err}): delete the run or train it again.") from None
    source = load_tokenizer(folder) if os.path.lexists(Path(folder) / TOKENIZER_FILE) else {"tokenizer": None}
    return {**source, "target_tokenizer": target}
