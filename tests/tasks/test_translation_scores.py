import math

import numpy as np
import pytest

from seqlab.tasks.translate.scores import bleu, chrf, exact_match, token_accuracy


def test_exact_match_counts_whole_strings():
    refs = ["einundzwanzig", "zwei", "drei", "vier"]
    assert exact_match(refs, ["einundzwanzig", "zwei", "dre", "vier "]) == 0.5


def test_token_accuracy_counts_real_tokens_and_eos_never_padding():
    eos = 3
    y_true = np.array([[5, 6, eos, 0], [7, eos, 0, 0]])
    y_pred = np.array([[5, 9, eos, 8], [7, 4, 4, 4]])  # wrong padding predictions never count
    assert token_accuracy(y_true, y_pred) == pytest.approx(3 / 5)  # right: 5, EOS; 7
    only_first = np.array([[True, False, False, False], [True, False, False, False]])
    assert token_accuracy(y_true, y_pred, only_first) == 1.0


def test_bleu_equals_the_hand_computed_value():
    # Hypothesis 5 words, reference 6: n-gram precisions 5/5, 3/4, 2/3, 1/2; brevity penalty e^(1 - 6/5).
    expected = 100 * math.exp(1 - 6 / 5) * (1 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25
    assert bleu(["the cat sat on the mat"], ["the cat sat on mat"]) == pytest.approx(expected)  # 57.89
    assert bleu(["a b c d"], ["a b c d"]) == pytest.approx(100)
    assert bleu(["a b c d"], ["w x y z"]) == 0.0


def test_bleu_on_sacrebleus_example_is_corpus_level():
    # sacrebleu's README example, with its first reference stream only.
    refs = ["The dog bit the man.", "It was not unexpected.", "The man bit him first."]
    hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    score = bleu(refs, hyps)
    assert score == pytest.approx(45.0675, abs=1e-3)
    assert score != pytest.approx(np.mean([bleu([r], [h]) for r, h in zip(refs, hyps)]))  # not a sentence mean


def test_chrf_equals_the_hand_computed_value():
    # "abd" for "abc": character 1-grams P = R = 2/3, 2-grams 1/2, 3-grams 0 -> mean 7/18, F = 38.89.
    assert chrf(["abc"], ["abd"]) == pytest.approx(100 * 7 / 18)
    # "ab" for "abcd": P = 1 and 1, R = 1/2 and 1/3 over the hypothesis's 1- and 2-grams; F_2 = 5PR / (4P + R).
    p, r = 1.0, (1 / 2 + 1 / 3) / 2
    assert chrf(["abcd"], ["ab"]) == pytest.approx(100 * 5 * p * r / (4 * p + r))
    assert chrf(["einundzwanzig"], ["einundzwanzg"]) > 80 > bleu(["einundzwanzig"], ["einundzwanzg"])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: exact_match(["a"], ["a", "b"]), "1 references but 2 hypotheses"),
        (lambda: bleu([], []), "at least one pair"),
        (lambda: chrf([[1, 2]], ["a"]), "must be strings"),
        (lambda: token_accuracy(np.zeros((2, 3)), np.zeros((2, 4))), "same shape"),
        (lambda: token_accuracy(np.zeros((2, 3)), np.zeros((2, 3))), "No real target tokens"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
