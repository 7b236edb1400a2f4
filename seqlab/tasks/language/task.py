r"""Language: predict the next token at every position of a window of token ids (seed 004).

Inputs are int32 token ids ``(B, T)`` of the run's tokeniser (fitted on the
training split only, saved with the run as ``tokenizer.json``). The
preprocessor is the learned embedding (seed 004's encoding C = W~A: row
``i(t)`` of a ``V x d`` matrix), so every architecture's body reads vectors.
The head is ``Dense(V, softmax)`` at every step: window ``x_1..x_T`` is
trained on ``x_2..x_{T+1}`` at all ``T`` positions, as nanoGPT does.

The head gives probabilities (like classify and label), and the loss is
sparse categorical cross-entropy on them; Keras's TensorFlow backend computes
it from the logits behind the softmax, so nothing is lost to the clip.
Judged on the held-out split, per token, in nats:

$$ \mathrm{CE} = -\frac{1}{N} \sum_n \log p(x_{n+1} \mid x_{\le n}),\qquad
   \mathrm{PPL} = e^{\mathrm{CE}},\qquad \mathrm{bpc} = \mathrm{CE} / \ln 2 $$

Bits per character are reported for character tokenisers only (one token is
one character there); word and BPE runs report cross-entropy and perplexity.
Baselines, on the same held-out windows and positions: the unigram model
(the training split's token frequencies with add-one smoothing: what is
frequent, but no context), and the best Markov chain of the same tokeniser
(``seqlab.layers.markov.MarkovChain``, orders 1 to 5 counted on the whole
training text, add-one smoothing with backoff; the order with the lowest
held-out cross-entropy is reported, so this baseline is never understated).
Like the model, a chain reads only the window's ids before each position.
"""

from __future__ import annotations

import math

import numpy as np

from seqlab.data.sequence_data import SequenceData
from seqlab.tasks.classify.task import EPSILON
from seqlab.tasks.language.baselines import markov_baseline, unigram
from seqlab.tasks.language.head import next_token_head
from seqlab.tasks.language.serving import TEXT_ENDPOINT, export_with_text
from seqlab.tasks.loss_scale import token_scale
from seqlab.tasks.metrics import ACCURACY, BITS_PER_CHARACTER, CROSS_ENTROPY, PERPLEXITY
from seqlab.tasks.task import Evaluation, Task, TextEndpoint, register_task
from seqlab.tasks.text_inputs import embed_tokens, load_tokenizer, save_tokenizer, token_inputs, tokenizer_of


def language_metrics(y_true: np.ndarray, p_true: np.ndarray, correct: np.ndarray, per_character: bool) -> dict:
    """Per-token cross-entropy (nats), perplexity, accuracy, and bits per character when tokens are characters."""
    cross_entropy = float(-np.mean(np.log(np.clip(p_true, EPSILON, 1.0))))
    scores = {
        "cross_entropy": cross_entropy,
        "perplexity": math.exp(cross_entropy),
        "accuracy": float(np.mean(correct)),
    }
    if per_character:
        scores["bits_per_character"] = cross_entropy / math.log(2)
    return scores


def evaluate_language(data: SequenceData, probabilities: np.ndarray) -> Evaluation:
    test, tokenizer = data.splits["test"], tokenizer_of(data)
    y = np.asarray(test.y, dtype="int64")  # (N, T)
    p_true = np.take_along_axis(probabilities, y[..., None], axis=-1)[..., 0]  # (N, T)
    y_pred = probabilities.argmax(axis=-1)
    prior = unigram(data.splits["train"].y, tokenizer.vocab_size)  # (V,)
    markov, markov_p, markov_choices = markov_baseline(data, y)
    per_character = tokenizer.kind == "char"
    metrics = {
        "model": language_metrics(y, p_true, y_pred == y, per_character),
        "baselines": {
            "unigram": language_metrics(y, prior[y], y == prior.argmax(), per_character),
            markov: language_metrics(y, markov_p, markov_choices == y, per_character),
        },
    }
    # Probabilities (N, T, V) would be large: keep the true token's and the choices.
    predictions = {
        "y_true": y,
        "y_pred": y_pred,
        "p_true": p_true.astype("float32"),
        "origin": test.origin,
        "baseline_unigram": np.full_like(y, prior.argmax()),
        f"baseline_{markov}": markov_choices,
    }
    return Evaluation(metrics, predictions)


LANGUAGE = register_task(
    Task(
        name="language",
        sequence_outputs=True,
        loss="sparse_categorical_crossentropy",
        metrics=("accuracy",),
        head=next_token_head,
        evaluate=evaluate_language,
        test_metrics=(BITS_PER_CHARACTER, CROSS_ENTROPY, PERPLEXITY, ACCURACY),
        outputs=lambda meta: (meta.lookback, None),
        baselines=(
            "The unigram model predicts every token by its training frequency, whatever came before; the "
            "Markov chain (the best order of 1 to 5) from the last k tokens, by counting the training text."
        ),
        inputs=token_inputs,
        preprocessor=embed_tokens,
        save_assets=save_tokenizer,
        load_assets=load_tokenizer,
        causal=True,
        export=export_with_text,
        curve=lambda unit, data_options: token_scale(data_options.get("tokenizer")),
        text_endpoint=TextEndpoint(TEXT_ENDPOINT),
        uses=("generate",),
    )
)
