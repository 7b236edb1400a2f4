"""How a test metric reads: its name, its unit, which way is better, and its display scale.

``metrics.json`` stores plain fractions and errors in the target's units (an
accuracy of 0.93, an MAE of 0.21 GW). The dashboard and the CLI both show them
through these definitions, so both print the same figures: accuracy and macro F1 in %,
errors in the target's unit, MSE in its square, cross-entropy in nats,
perplexity as a number of tokens, a language model's bits per character in bits. A task
declares its metrics (``Task.test_metrics``), the first being the one it is
judged by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TARGET_UNIT = "target"  # the unit of the series predicted (GW, °C, ...)
TARGET_UNIT_SQUARED = "target²"


@dataclass(frozen=True)
class Metric:
    """One test metric.

    Attributes:
        key: its name in ``metrics.json``.
        name: how it is labelled (``MAE``).
        unit: ``TARGET_UNIT``, ``TARGET_UNIT_SQUARED`` or a fixed unit (``%``, ``nats``).
        higher_is_better: accuracy; every error is lower-is-better.
        factor: stored value × factor = shown value (accuracy 0.93 -> 93 %).
        of_truth: a percentage of the true values (MAPE, sMAPE): meaningless where they
            come near or cross zero (``seqlab.forecasting.metrics.near_zero``).
    """

    key: str
    name: str
    unit: str = ""
    higher_is_better: bool = False
    factor: float = 1.0
    of_truth: bool = False

    def unit_for(self, target_unit: str) -> str:
        """The unit shown, given the target's unit: ``GW``, ``GW²``, ``%`` or ``""``."""
        if self.unit == TARGET_UNIT:
            return target_unit
        if self.unit == TARGET_UNIT_SQUARED:
            return squared_unit(target_unit)
        return self.unit

    def label(self, target_unit: str = "") -> str:
        """``MAE (GW)``, ``accuracy (%)``; just the name when there is no unit."""
        unit = self.unit_for(target_unit)
        return f"{self.name} ({unit})" if unit else self.name

    def skill(self, model, baseline) -> float:
        """How much better ``model`` is than ``baseline`` (stored values; positive: the model wins), in the
        metric's direction: an error's ``(1 - model / baseline) * 100`` in %; a higher-is-better metric's gain
        in its shown units (accuracy: percentage points). NaN when either is missing or the baseline's error is 0."""
        model, baseline = self.display(model), self.display(baseline)
        if self.higher_is_better:
            return model - baseline
        return (1 - model / baseline) * 100 if baseline else math.nan

    def best(self, values: dict) -> str | None:
        """The key of the best of ``values`` (highest or lowest, as the metric reads), finite ones only."""
        finite = {k: float(v) for k, v in values.items() if not math.isnan(self.display(v))}
        if not finite:
            return None
        return (max if self.higher_is_better else min)(finite, key=finite.get)

    def display(self, value) -> float:
        """The stored value as shown (accuracy in %); NaN when missing or not finite."""
        try:
            number = float(value)
        except (TypeError, ValueError):
            return math.nan
        return number * self.factor if math.isfinite(number) else math.nan


def squared_unit(unit: str | None) -> str:
    """The unit of a mean squared error: ``GW`` -> ``GW²``; ``""`` stays empty."""
    if not unit:
        return ""
    return f"({unit})²" if ("/" in unit or " " in unit) else f"{unit}²"


ACCURACY = Metric("accuracy", "accuracy", "%", higher_is_better=True, factor=100.0)
CROSS_ENTROPY = Metric("cross_entropy", "cross-entropy", "nats")
MACRO_F1 = Metric("macro_f1", "macro F1", "%", higher_is_better=True, factor=100.0)  # seqlab.tasks.class_scores
MAE = Metric("mae", "MAE", TARGET_UNIT)
RMSE = Metric("rmse", "RMSE", TARGET_UNIT)
MSE = Metric("mse", "MSE", TARGET_UNIT_SQUARED)
MAPE = Metric("mape", "MAPE", "%", of_truth=True)  # stored in percent already
SMAPE = Metric("smape", "sMAPE", "%", of_truth=True)  # stored in percent already
MASE = Metric("mase", "MASE")  # a ratio of errors, unitless: below 1 beats the in-sample seasonal naive
PERPLEXITY = Metric("perplexity", "perplexity")  # exp(cross-entropy): a count of equally likely tokens
BITS_PER_CHARACTER = Metric("bits_per_character", "bits per character", "bits")
EXACT_MATCH = Metric("exact_match", "exact match", "%", higher_is_better=True, factor=100.0)  # translations
TOKEN_ACCURACY = Metric("token_accuracy", "token accuracy", "%", higher_is_better=True, factor=100.0)
BLEU = Metric("bleu", "BLEU", higher_is_better=True)  # sacrebleu's 0-100 scale
CHRF = Metric("chrf", "chrF", higher_is_better=True)  # sacrebleu's 0-100 scale

# Every known metric, in the order shown when no task says otherwise.
METRICS: dict[str, Metric] = {
    m.key: m
    for m in (ACCURACY, MACRO_F1, CROSS_ENTROPY, PERPLEXITY, BITS_PER_CHARACTER, MAE, RMSE, MAPE, SMAPE, MASE, MSE,
              EXACT_MATCH, TOKEN_ACCURACY, BLEU, CHRF)
}


def get_metric(key: str) -> Metric:
    """The metric called ``key``; an unknown one reads as its key, without unit, lower is better."""
    return METRICS.get(key) or Metric(key, key.replace("_", " "))
