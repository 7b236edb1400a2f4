r"""How a loss curve reads: the axis title and the map from the loss Keras reports to the value drawn.

A task says how its training loss is best read (``Task.loss_scale``). Most
show the loss itself: ``MSE (GW²)``, ``cross-entropy (nats)``. A language
model's cross-entropy $\mathrm{CE}$ in nats reads better as what its test
metrics report: bits per character for character tokens, perplexity otherwise,

$$ \mathrm{bpc} = \mathrm{CE} / \ln 2, \qquad \mathrm{PPL} = e^{\mathrm{CE}} $$

so the live curve and the run's final figures are in the same unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from seqlab.tasks.metrics import squared_unit

LARGEST_EXPONENT = 700.0  # e^700 is near float64's largest: a diverging loss draws as huge, not an error


def loss_axis_title(loss: str, unit: str = "") -> str:
    """``MSE (GW²)``, ``MSE``, ``cross-entropy (nats)`` or the loss name itself."""
    if loss == "mse":
        sq = squared_unit(unit)
        return f"MSE ({sq})" if sq else "MSE"
    if "crossentropy" in loss.replace("_", ""):
        return "cross-entropy (nats)"
    return loss.replace("_", " ")


def _same(value: float) -> float:
    return value


@dataclass(frozen=True)
class LossScale:
    """How to draw a loss.

    Attributes:
        title: the y axis title, with its unit.
        of: the loss as Keras reports it -> the value drawn.
        log_y: a logarithmic axis (losses that fall by orders of magnitude).
        short: what follows a value of it in a small card (``bpc``); empty for the loss itself.
    """

    title: str
    of: Callable[[float], float] = _same
    log_y: bool = True
    short: str = ""

    def shown(self, loss: float) -> str:
        """The loss as a card shows it: ``3.44 bpc``, ``0.0123``."""
        return f"{self.of(loss):.4g} {self.short}".rstrip()

    def values(self, losses) -> list:
        """``of`` applied to each loss; a missing one (``None``) stays missing."""
        return [None if v is None else self.of(v) for v in losses]


def plain_scale(loss: str, unit: str = "") -> LossScale:
    """The loss itself, titled by ``loss_axis_title``."""
    return LossScale(loss_axis_title(loss, unit))


def bits_per_character(nats: float) -> float:
    return nats / math.log(2)


def perplexity(nats: float) -> float:
    return math.exp(min(nats, LARGEST_EXPONENT))


BITS_PER_CHARACTER_SCALE = LossScale("bits per character", bits_per_character, log_y=False, short="bpc")
PERPLEXITY_SCALE = LossScale("perplexity (tokens)", perplexity, short="perplexity")


def token_scale(tokenizer_kind: str | None) -> LossScale:
    """Bits per character for character tokens, perplexity for word and BPE tokens."""
    return BITS_PER_CHARACTER_SCALE if tokenizer_kind == "char" else PERPLEXITY_SCALE
