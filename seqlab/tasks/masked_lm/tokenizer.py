"""The tokeniser of BERT's pre-training data: its vocabulary holds [CLS], [SEP] and [MASK]."""

from __future__ import annotations

from seqlab.data.bert_pretraining import BERT_SPECIALS
from seqlab.data.sequence_data import SequenceData
from seqlab.text import Tokenizer


def bert_tokenizer_of(data: SequenceData) -> Tokenizer:
    if data.tokenizer is None or data.tokenizer.specials[2:] != BERT_SPECIALS:
        raise ValueError(f"Dataset {data.name!r} has no tokeniser with [CLS], [SEP] and [MASK]: BERT pre-training "
                         "data fits one on its training texts (seqlab.data.bert_pretraining).")
    return data.tokenizer
