"""Fill in the blank and contextual embeddings on a tiny BERT pre-training run; bad input gets clear messages."""

import numpy as np
import pytest

from seqlab.tasks.masked_lm.contextual import contextual_vectors, cosine_similarities
from seqlab.tasks.masked_lm.fill_in import fill_in, fit_context
from seqlab.data.bert_pretraining import MASK_ID
from tests.bert_run import CONTEXT, bert_world, pretrained_run  # noqa: F401  the module's fixture


def test_top_predictions_per_blank(bert_world):
    run = pretrained_run(bert_world)
    filled = fill_in(run, "The film is [MASK] , number [mask] .", top_k=3)
    assert filled.tokens[0] == "[CLS]" and filled.tokens[-1] == "[SEP]"
    assert [filled.tokens[b.position] for b in filled.blanks] == ["[MASK]", "[MASK]"]
    vocab = run.load_tokenizer().vocab
    for blank in filled.blanks:
        assert len(blank.tokens) == 3 and all(t in vocab[5:] for t in blank.tokens), "words, never specials"
        assert list(blank.probabilities) == sorted(blank.probabilities, reverse=True)
        assert 0 < sum(blank.probabilities) <= 1 + 1e-9
    assert not filled.notes
    assert filled.text().startswith("the film is ") and "[MASK]" not in filled.text()
    assert filled.as_dict()["blanks"][0]["predictions"][0]["token"] == filled.blanks[0].tokens[0]


def test_bad_input_is_refused_or_noted(bert_world):
    run = pretrained_run(bert_world)
    with pytest.raises(ValueError, match="no \\[MASK\\]"):
        fill_in(run, "the film is dull .")
    with pytest.raises(ValueError, match="empty"):
        fill_in(run, "   ")
    with pytest.raises(ValueError, match="only \\[MASK\\]"):
        fill_in(run, "[MASK] [MASK]")
    with pytest.raises(ValueError, match="top_k"):
        fill_in(run, "the film is [MASK]", top_k=0)
    unknown = fill_in(run, "the zorblax film is [MASK] .")
    assert "'zorblax'" in unknown.notes[0] and "[UNK]" in unknown.tokens
    long = fill_in(run, "the film is dull , number 1 . " * 5 + "it is [MASK] .")
    assert len(long.tokens) == CONTEXT and "more than the 14 the model reads" in long.notes[0]
    assert len(long.blanks) == 1, "the blank is kept when the text is trimmed"
    with pytest.raises(ValueError, match="tokens apart"):
        fill_in(run, "[MASK] " + "the film is dull . " * 5 + "[MASK]")
    other = type("R", (), {"run_id": "x", "meta": type("M", (), {"task": "classify"})()})()
    with pytest.raises(ValueError, match="needs a masked_lm run; run 'x' is a classify run. A classify run offers "
                                         r"answering raw texts \(predict --text\)"):
        fill_in(other, "the [MASK] sat")


def test_fit_context_keeps_the_blanks():
    ids = list(range(10, 30))
    ids[15] = MASK_ID
    kept, note = fit_context(ids, 8)
    assert len(kept) == 6 and MASK_ID in kept and "left out 14" in note
    assert fit_context([1, MASK_ID], 8) == ([1, MASK_ID], None)


def test_contextual_vectors_differ_by_sentence(bert_world):
    run = pretrained_run(bert_world)
    model, tokenizer = run.load_model(), run.load_tokenizer()
    sentences = ["the film is dull .", "the film is superb , number 3 .", "the film is dull ."]
    vectors = contextual_vectors(model, tokenizer, "film", sentences)
    assert vectors.shape == (3, 16)
    similar = cosine_similarities(vectors)
    assert np.allclose(np.diag(similar), 1, atol=1e-5) and np.allclose(similar, similar.T, atol=1e-6)
    assert similar[0, 2] == pytest.approx(1, abs=1e-5), "the same sentence gives the same vector"
    assert similar[0, 1] < 1 - 1e-4, "another sentence, another vector: the context changes it"
    with pytest.raises(ValueError, match="does not contain 'dull'"):
        contextual_vectors(model, tokenizer, "dull", sentences)
    with pytest.raises(ValueError, match="one word of the run's vocabulary"):
        contextual_vectors(model, tokenizer, "zorblax", sentences)


def test_the_savedmodel_fills_in_like_fill_in(bert_world):
    import tensorflow as tf

    from seqlab.late_export import add_savedmodel

    run = pretrained_run(bert_world)
    add_savedmodel(run)  # trained without it (tests.bert_run)
    served = tf.saved_model.load(str(run.savedmodel_path))
    texts = ["The film is [MASK] , number 3 .", "[mask] film is dull ."]
    out = {k: v.numpy() for k, v in served.fill(tf.constant(texts)).items()}
    for n, text in enumerate(texts):
        filled = fill_in(run, text, top_k=5)
        assert [t.decode() for t in out["tokens"][n][: len(filled.tokens)]] == list(filled.tokens)
        positions = np.flatnonzero(out["is_blank"][n])
        assert positions.tolist() == [b.position for b in filled.blanks]
        for position, blank in zip(positions, filled.blanks):
            assert [t.decode() for t in out["top_tokens"][n, position]] == list(blank.tokens)
            np.testing.assert_allclose(out["top_probabilities"][n, position], blank.probabilities, rtol=1e-4)
    assert served.serve(tf.zeros((1, CONTEXT), tf.int32)).shape[1] == CONTEXT
