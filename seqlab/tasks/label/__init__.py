"""Label: a class at every step; ``task`` registers it, ``answers`` reads its tags of raw texts."""

from seqlab.tasks.label.task import evaluate_labelling

__all__ = ["evaluate_labelling"]
