"""A model stepped one id at a time from its carried state gives what recomputing its whole window gives."""

import numpy as np

from seqlab import decoding
from seqlab.models.chain_steps import ChainSteps
from seqlab.models.registry import steps_of
from seqlab.tasks.language.generate import language_next, recomputed_next


def assert_steps_as_recomputing(model, T: int) -> None:
    """Log-probabilities at every step of a prompt read at once then one id a step, and greedy tokens, as the whole
    window recomputed gives them; the architecture declares its stepping as a chain of compiled steps."""
    assert isinstance(steps_of(model), ChainSteps)
    x = np.random.default_rng(2).integers(2, 20, (3, T))
    stepped, recomputed = language_next(steps_of(model)), recomputed_next(model)
    a, state = stepped(x[:, :5], None)
    b, context = recomputed(x[:, :5], None)
    for t in range(5, T):
        np.testing.assert_allclose(a, b, atol=1e-5)
        a, state = stepped(x[:, t : t + 1], state)
        b, context = recomputed(x[:, t : t + 1], context)
    prompt = [[3, 4, 5]]
    [greedy], [again] = (decoding.greedy(f, prompt, T - 3) for f in (language_next(steps_of(model)),
                                                                    recomputed_next(model)))
    assert greedy.tokens == again.tokens
