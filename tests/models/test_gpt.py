"""The gpt architecture: shape, causality, and generation with the key/value cache equal to recomputing the context."""

import numpy as np
import pytest

from seqlab import decoding
from seqlab.data import load_dataset
from seqlab.tasks.language.generate import language_next, recomputed_next
from seqlab.models import build_model
from seqlab.models.gpt_steps import GPTSteps
from seqlab.models.registry import steps_of
from seqlab.text import PAD_ID

T = 16


@pytest.fixture(scope="module")
def text():
    return load_dataset("pydoc", characters=3000, lookback=T, stride=T, embedding_dim=8)


@pytest.fixture(scope="module")
def model(text):
    return build_model("gpt", text, {"layers": 2, "heads": 2, "width": 12})


def test_gpt_predicts_every_position_through_its_blocks(text, model):
    names = [layer.name for layer in model.layers]
    assert names == ["tokens", "embedding", "projection", "positions", "block_1", "block_2", "final_norm", "next_token"]
    assert model.get_layer("block_1").ff_units == 48  # ff_units 0: 4 x width
    assert not model.get_layer("block_1").cross_attention and model.get_layer("block_1").norm == "pre"
    probabilities = model.predict(text.splits["test"].x[:3], verbose=0)
    assert probabilities.shape == (3, T, text.tokenizer.vocab_size)
    np.testing.assert_allclose(probabilities.sum(-1), 1.0, atol=1e-5)


def test_width_defaults_to_the_embedding_and_sinusoidal_positions_have_no_weights(text):
    model = build_model("gpt", text, {"layers": 1, "heads": 2, "positions": "sinusoidal"})
    assert "projection" not in [layer.name for layer in model.layers]
    assert model.get_layer("positions").count_params() == 0 and model.get_layer("block_1").ff_units == 32


def test_a_later_token_never_changes_an_earlier_prediction(model):
    x = np.random.default_rng(0).integers(2, 30, (2, T))
    changed = x.copy()
    changed[:, 9:] = np.random.default_rng(1).integers(2, 30, (2, T - 9))
    before, after = model.predict(x, verbose=0), model.predict(changed, verbose=0)
    np.testing.assert_allclose(before[:, :9], after[:, :9], atol=1e-6)
    assert not np.allclose(before[:, 9:], after[:, 9:], atol=1e-4)


@pytest.mark.parametrize("options, message", [
    ({"heads": 5, "width": 12}, "does not split into 5 heads"),
    ({"ff_units": -1}, r"ff_units must lie in \[0, 4096\]"),
    ({"layers": 0}, r"layers must lie in \[1, 8\]"),
])
def test_bad_options_are_refused_with_the_fix(text, options, message):
    with pytest.raises(ValueError, match=message):
        build_model("gpt", text, options)


def _finite(log_probs):
    log_probs = np.asarray(log_probs)
    assert np.all(log_probs[:, PAD_ID] == -np.inf)  # padding is never generated
    return log_probs[:, 1:]


def test_cached_steps_give_the_log_probs_of_recomputing_the_context(model):
    assert isinstance(steps_of(model), GPTSteps)  # the architecture declares its cache
    x = np.random.default_rng(2).integers(2, 30, (3, T))
    cached, recomputed = language_next(steps_of(model)), recomputed_next(model)
    a, state = cached(x[:, :5], None)  # the prompt once, then one id a step
    b, context = recomputed(x[:, :5], None)
    for t in range(5, T):
        np.testing.assert_allclose(_finite(a), _finite(b), atol=1e-5)
        a, state = cached(x[:, t : t + 1], state)
        b, context = recomputed(x[:, t : t + 1], context)
    assert state[0]["context"].shape == (3, T) and state[0]["cache"].shape == (3, 2, 2, 2, T, 6)


def test_every_decoder_gives_the_same_text_with_and_without_the_cache(model):
    prompt = [[3, 4, 5, 6]]
    tokens = T - len(prompt[0])  # within the context: the cache is exact
    for decode in (
        lambda f: decoding.greedy(f, prompt, tokens),
        lambda f: decoding.sample(f, prompt, tokens, temperature=0.8, top_k=5, seed=1),
        lambda f: decoding.sample(f, prompt, tokens, temperature=1.2, top_p=0.9, seed=2),
        lambda f: decoding.beam_search(f, prompt, tokens, width=3),
    ):
        [cached], [recomputed] = decode(language_next(steps_of(model))), decode(recomputed_next(model))
        assert cached.tokens == recomputed.tokens
        np.testing.assert_allclose([c.prob for c in cached.choices], [c.prob for c in recomputed.choices], atol=1e-5)


def test_the_cache_goes_on_past_the_context(model):
    # Rebuilt from the last T / 2 ids when the cache is full.
    [out] = decoding.greedy(language_next(steps_of(model)), [[3, 4, 5]], 3 * T)
    assert len(out.tokens) == 3 * T and PAD_ID not in out.tokens
