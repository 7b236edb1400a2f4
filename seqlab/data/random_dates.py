"""Random dates, each with a way of writing it picked at random: the draw of ``dates`` and ``written_dates``.

Writing a date out (``babel``, ``num2words``) is pure Python, tens of
microseconds and about a kilobyte of strings a sample until the dataset is
built, so the draw first estimates the whole load from the dataset's measured
rates and refuses it beyond ``max_work_seconds`` or ``max_data_mb``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np

from seqlab.limits import check_memory, check_work


@dataclass(frozen=True)
class WritingCost:
    """Measured cost of one sample of a dataset of written dates, from its draw to its arrays.

    Attributes:
        seconds: CPU time of writing it out and tokenising it.
        bytes: peak memory it holds while the dataset is built (its strings, token lists and frame rows).
    """

    seconds: float
    bytes: int


def random_dates(
    samples: int, seed: int, first: datetime.date, last: datetime.date, ways: int, cost: WritingCost
) -> list[tuple[datetime.date, int]]:
    """``samples`` dates uniform over ``first`` to ``last``, each with a way of writing it in ``range(ways)``.

    Seeded by ``seed``: the dates are drawn first, then the ways. Refused before
    anything is drawn when ``samples`` times ``cost`` passes the limits.
    """
    advice = "use fewer samples"
    check_work(samples * cost.seconds, f"writing out {samples:,} dates", advice)
    check_memory(samples * cost.bytes, f"{samples:,} dates written out", advice)
    rng = np.random.default_rng(seed)
    days = rng.integers(0, (last - first).days + 1, samples)
    picks = rng.integers(0, ways, samples)
    return [(first + datetime.timedelta(days=int(day)), int(pick)) for day, pick in zip(days, picks)]
