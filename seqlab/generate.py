"""Generate text from a language run: its tokeniser, its model's steps, and ``seqlab.decoding``.

The run's architecture says how its model goes one token at a time
(``seqlab.models.steps``): a recurrent model carries every cell's state and
reads only the new id, never the prompt again (so 200 tokens cost 200
compiled cell steps, not 200 passes over a growing context); a GPT keeps every
block's keys and values in a cache; an HMM carries its forward state; a
Markov chain and the window model re-read their last ids. ``language_next``
turns those steps into the decoders' ``next``; the padding id is never
generated.

A model with a context (a GPT's window of ``T`` ids) reads at most that many:
a longer prompt is cut to its last ``T`` ids (``GeneratedText.notice`` says
so).

``generate_text`` is what the CLI's ``generate`` and the dashboard call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from seqlab import decoding
from seqlab.models.steps import Steps
from seqlab.models.registry import steps_of
from seqlab.text import PAD_ID, UNK_ID, Tokenizer

if TYPE_CHECKING:
    import keras

    from seqlab.runs import Run

@dataclass(frozen=True)
class GeneratedText:
    """A continuation of a prompt.

    Attributes:
        prompt: the prompt as the tokeniser reads it (standardised).
        text: the generated text (the prompt not repeated).
        tokens: each generated token as text, in order.
        generated: the decoder's record: ids, and per id its probability and
            the top alternatives (``seqlab.decoding.Generated``).
        notice: what was done to the prompt, for the reader (a prompt longer
            than the model's context is cut to its end); ``None``: nothing.
    """

    prompt: str
    text: str
    tokens: tuple[str, ...]
    generated: decoding.Generated
    notice: str | None = None

    def as_dict(self, tokenizer: Tokenizer) -> dict:
        """JSON-ready: the text, and per token its text, id, probability and the alternatives."""
        return {
            "prompt": self.prompt,
            "text": self.text,
            "log_prob": self.generated.log_prob,
            "notice": self.notice,
            "tokens": [
                {
                    "token": token,
                    "id": choice.token,
                    "prob": choice.prob,
                    "alternatives": [{"token": tokenizer.vocab[i], "id": i, "prob": p} for i, p in choice.alternatives],
                }
                for token, choice in zip(self.tokens, self.generated.choices)
            ],
        }


def language_next(steps: Steps) -> decoding.NextFn:
    """``next(tokens, state)`` of ``seqlab.decoding`` from a language model's steps (``seqlab.models.steps``).

    The prompt is read once (``steps.read``), then one id a step
    (``steps.next``); the state is the model's own, beside how many ids it has
    read. The padding id is never generated.
    """

    def next_fn(tokens, state):
        tokens = np.asarray(tokens, dtype="int64")
        rows, n = tokens.shape
        if state is None or n > 1:
            inner, read = (steps.start(rows), 0) if state is None else (state[0], int(state[1][0]))
            probabilities, inner = steps.read(tokens, inner)
            probabilities = np.asarray(probabilities)[:, -1]
        else:
            inner, read = state[0], int(state[1][0])
            probabilities, inner = steps.next(tokens[:, 0], inner, read)
        return _log_probs(np.asarray(probabilities)), (inner, np.full(rows, read + n))

    return next_fn


def recomputed_next(model: keras.Model) -> decoding.NextFn:
    """``next(tokens, state)`` of a causal model that reads its whole context again for every token.

    Every call runs the whole model on the last ``T`` ids, padded after their
    end: the mask keeps the padding unread. The reference for a GPT's
    key/value cache (``seqlab.models.gpt_steps``), and the cost it saves:
    both give the same log-probabilities while the context fits in ``T``.
    """
    window = int(model.inputs[0].shape[1])

    def log_probs_of(context: np.ndarray) -> np.ndarray:
        padded = np.full((len(context), window), PAD_ID, dtype="int32")
        padded[:, : context.shape[1]] = context
        probabilities = model.predict_on_batch(padded)[:, context.shape[1] - 1]  # (rows, V) after the last id
        return _log_probs(probabilities)

    return decoding.context_next(log_probs_of, window=window)


def _log_probs(probabilities: np.ndarray) -> np.ndarray:
    """The head's probabilities as log-probabilities; padding is never a next token."""
    log_probs = np.log(np.clip(probabilities.astype("float64"), 1e-12, 1.0))
    log_probs[:, PAD_ID] = -np.inf
    return decoding.log_softmax(log_probs)


def check_language_run(run: Run) -> None:
    if run.meta.task != "language":
        raise ValueError(f"Run {run.run_id} is a {run.meta.task} run; only language runs generate text.")


def run_tokenizer(run: Run) -> Tokenizer:
    """The tokeniser saved with a language run (``tokenizer.json``)."""
    check_language_run(run)
    return run.load_tokenizer()


def prompt_ids(tokenizer: Tokenizer, prompt: str) -> list[int]:
    """The prompt's ids; a prompt the tokeniser reads as nothing, or as unknown tokens only, is refused."""
    ids = tokenizer.encode(prompt)
    if not ids:
        raise ValueError("The prompt is empty after standardisation: give a prompt with some text.")
    if all(i == UNK_ID for i in ids):
        raise ValueError(
            f"Every token of the prompt {prompt!r} is unknown to this run's {tokenizer.kind} tokeniser "
            "(none was seen in training): use characters or words of the training text."
        )
    return ids


def generate_text(
    run: Run,
    prompt: str,
    tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    model: keras.Model | None = None,
    tokenizer: Tokenizer | None = None,
) -> GeneratedText:
    """Continue ``prompt`` by ``tokens`` tokens of a language run (``temperature=0``: greedy).

    ``model`` and ``tokenizer`` default to the run's own (pass them to reuse loaded ones).
    """
    check_language_run(run)
    tokenizer = tokenizer or run_tokenizer(run)
    ids = prompt_ids(tokenizer, prompt)
    model = model or run.load_model()
    steps = steps_of(model)
    notice, context = None, steps.context
    if context is not None and len(ids) > context:
        notice = (
            f"The prompt has {len(ids):,} tokens, more than this model's context of {context}: "
            f"it reads only the last {context}."
        )
        ids = ids[-context:]
    [generated] = decoding.sample(
        language_next(steps), [ids], max_new_tokens=tokens, temperature=temperature, top_k=top_k, top_p=top_p,
        seed=seed,
    )
    pieces = tuple(tokenizer.vocab[i] for i in generated.tokens)
    return GeneratedText(
        prompt=tokenizer.standardize(prompt),
        text=tokenizer.decode(generated.tokens),
        tokens=pieces,
        generated=generated,
        notice=notice,
    )
