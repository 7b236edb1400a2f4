"""Inputs of text: token ids in, a learned embedding inside the model, the tokeniser saved with the run.

Every task that reads text (language, and classify or label on a text
dataset) takes int32 token ids of the run's tokeniser (fitted on the
training split only) and embeds them with a learned ``Embedding`` (seed
004's encoding C: row ``i(t)`` of a ``V x d`` matrix), so every
architecture's body reads vectors. The run keeps the tokeniser as
``tokenizer.json`` beside its model.

``sequence_inputs``, ``sequence_preprocessor``, ``save_sequence_assets`` and
``load_sequence_assets`` serve the tasks whose data may be numbers or text
(classify, label): the data decides, by whether it has a tokeniser. Padded
sentences are masked (``mask_zero``): recurrent bodies skip the padding.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from seqlab.bounded_json import TOKENIZER_BYTES, read_json
from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.numeric import InputSpec, load_scaler, numeric_inputs, save_scaler, scale_inputs
from seqlab.text import PAD_ID, Tokenizer

if TYPE_CHECKING:
    import keras

TOKENIZER_FILE = "tokenizer.json"
EMBEDDING_LAYER = "embedding"


def tokenizer_of(data: SequenceData) -> Tokenizer:
    if data.tokenizer is None:
        raise ValueError(
            f"Dataset {data.name!r} has no tokeniser, but a text task reads token ids: its loader must fit "
            "one on the training text (seqlab.text)."
        )
    return data.tokenizer


def token_inputs(data: SequenceData) -> tuple[InputSpec, ...]:
    """One window of ``T`` token ids."""
    return (InputSpec("tokens", (data.lookback,), "int32"),)


def embed_tokens(data: SequenceData, mask_padding: bool = False) -> keras.layers.Layer:
    """The learned embedding ``V x d``, ``d`` = the dataset's ``embedding_dim``; ``mask_padding``: mask ``[PAD]``."""
    import keras

    # float32 even under mixed precision: the gradient of a bfloat16 lookup is a bfloat16 scatter-add, which
    # made a GPT step on an H200 34 times slower (bench/gpt_jax.py --bf16: 80 against 2.4 ms at batch 512).
    return keras.layers.Embedding(
        tokenizer_of(data).vocab_size, int(data.options["embedding_dim"]), mask_zero=mask_padding and PAD_ID == 0,
        name=EMBEDDING_LAYER, dtype="float32",
    )


def save_tokenizer(folder: Path, data: SequenceData) -> list[str]:
    """Write the tokeniser as plain JSON (``Tokenizer.to_dict``)."""
    (Path(folder) / TOKENIZER_FILE).write_text(json.dumps(tokenizer_of(data).to_dict(), indent=1, ensure_ascii=False))
    return [TOKENIZER_FILE]


def load_tokenizer(folder: Path) -> dict:
    """``{"tokenizer": Tokenizer}`` from ``tokenizer.json``."""
    path = Path(folder) / TOKENIZER_FILE
    if not os.path.lexists(path):
        raise ValueError(f"{path} is missing: a text run keeps its tokeniser there; train the run again.")
    try:
        return {"tokenizer": Tokenizer.from_dict(read_json(path, TOKENIZER_FILE, TOKENIZER_BYTES))}
    except ValueError as err:
        raise ValueError(f"{path} is damaged ({err}): delete the run or train it again.") from None


def sequence_inputs(data: SequenceData) -> tuple[InputSpec, ...]:
    """Token ids for text data, else a float window."""
    return token_inputs(data) if data.tokenizer is not None else numeric_inputs(data)


def sequence_preprocessor(data: SequenceData):
    """The embedding (padding masked) for text data, else the scaling of the numbers."""
    return embed_tokens(data, mask_padding=True) if data.tokenizer is not None else scale_inputs(data)


def save_sequence_assets(folder: Path, data: SequenceData) -> list[str]:
    """The tokeniser of text data, else the scaler."""
    return save_tokenizer(folder, data) if data.tokenizer is not None else save_scaler(folder, data)


def load_sequence_assets(folder: Path) -> dict:
    """Whichever of ``tokenizer.json`` and ``scaler.json`` the run kept."""
    folder = Path(folder)
    return load_tokenizer(folder) if os.path.lexists(folder / TOKENIZER_FILE) else load_scaler(folder)
