"""Regress: a sequence -> real values, its target once per sequence; ``task`` registers it."""

from seqlab.tasks.regress.task import regression_metrics

__all__ = ["regression_metrics"]
