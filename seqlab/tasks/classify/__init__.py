"""Classify: a sequence -> one class; ``task`` registers it, ``answers`` reads its answers to raw texts."""

from seqlab.tasks.classify.task import class_evaluation, class_frequencies, class_head, class_metrics

__all__ = ["class_evaluation", "class_frequencies", "class_head", "class_metrics"]
