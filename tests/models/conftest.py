"""One tiny dataset per task kind, shared by the architecture tests."""

import pytest

from seqlab.data import load_dataset


@pytest.fixture(scope="session")
def tiny():
    return {
        "forecast": load_dataset("sine", length=300, lookback=10, horizon=3),
        "regress": load_dataset("adding", length_T=6, samples=40),
        "classify": load_dataset("digits"),
        "label": load_dataset("copy", length=2, delay=2, symbols=3, samples=40),
    }
