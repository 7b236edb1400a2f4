"""Language: the next token at every step, and text generated with a run after training.

``task`` registers the task (its metrics); ``head`` is its next-token layer,
``baselines`` the unigram model and the Markov chains. The SavedModel's
raw-string endpoint is ``seqlab.tasks.language.serving``; generating text with
a run, ``seqlab.tasks.language.generate``. This package's names never import those (the models
read ``HEAD_LAYER`` and the Markov settings, and serving imports the models).
"""

from seqlab.tasks.language.baselines import MARKOV_ALPHA, MARKOV_CELLS, MARKOV_ORDERS, markov_predictions, unigram
from seqlab.tasks.language.head import HEAD_LAYER
from seqlab.tasks.text_inputs import tokenizer_of

__all__ = ["HEAD_LAYER", "MARKOV_ALPHA", "MARKOV_CELLS", "MARKOV_ORDERS", "markov_predictions", "tokenizer_of", "unigram"]
