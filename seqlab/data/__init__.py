"""Datasets: a registry of named, offline datasets and their windowing."""

from seqlab.data.registry import DatasetInfo, get_dataset, list_datasets, load_dataset
from seqlab.data.scaler import Scaler
from seqlab.data.sequence_data import TASKS, SequenceData, Split

# Importing the modules registers their datasets.
from seqlab.data import adding, copy_task, digits, energy, mackey_glass, pydoc_text, synthetic  # noqa: E402,F401  isort: skip
from seqlab.data import shakespeare_text, user_text_dataset, user_series  # noqa: E402,F401  isort: skip
from seqlab.data import airpassengers, dax, elecdaily, sunspots, taylor  # noqa: E402,F401  isort: skip
from seqlab.data import movie_sentiment, user_text_classes  # noqa: E402,F401  isort: skip
from seqlab.data import japanese_vowels, written_dates  # noqa: E402,F401  isort: skip
from seqlab.data import dates, digit_names, ding_en_de, numbers_en_de, toy_pairs, user_pairs  # noqa: E402,F401  isort: skip
from seqlab.data import bert_pretraining, spelt_dates_mlm  # noqa: E402,F401  isort: skip

__all__ = [
    "TASKS",
    "DatasetInfo",
    "Scaler",
    "SequenceData",
    "Split",
    "get_dataset",
    "list_datasets",
    "load_dataset",
]
