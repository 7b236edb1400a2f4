"""Masked_lm: BERT's pre-training, and what a pre-trained run does after.

``task`` registers the task; ``tokenizer`` checks the data's tokeniser (with
[CLS], [SEP] and [MASK]); ``serving`` writes the SavedModel's ``fill``
endpoint; ``fill_in`` guesses the blanks of a text with a run, and
``contextual`` reads the vectors its last encoder layer gives a word in
different sentences.
"""

from seqlab.tasks.masked_lm.task import pretraining_scores, top_predictions
from seqlab.tasks.masked_lm.tokenizer import bert_tokenizer_of

__all__ = ["bert_tokenizer_of", "pretraining_scores", "top_predictions"]
