import io

import numpy as np
import pytest

from seqlab.inputs import InputLimits
from seqlab.layers.embedding import read_glove

GLOVE = "the 0.1 0.2\ncat 1 2\ndog -1 -2\n"


def test_vectors_come_in_vocabulary_order_and_missing_tokens_are_counted(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text(GLOVE, encoding="utf-8")
    glove = read_glove(path, ["[PAD]", "[UNK]", "dog", "cat"])
    np.testing.assert_array_equal(glove.vectors, [[0, 0], [0, 0], [-1, -2], [1, 2]])
    assert glove.vectors.dtype == np.float32
    assert glove.missing_tokens == ("[PAD]", "[UNK]")
    assert glove.note == f"2 of 4 vocabulary tokens are not in {str(path)!r} and got zero vectors: '[PAD]', '[UNK]'."


def test_nothing_missing_no_note():
    assert read_glove(GLOVE.encode(), ["cat", "dog"]).note is None


def test_random_policy_gives_distinct_seeded_vectors():
    first = read_glove(GLOVE.encode(), ["[PAD]", "[UNK]", "cat"], missing="random", seed=3)
    again = read_glove(GLOVE.encode(), ["[PAD]", "[UNK]", "cat"], missing="random", seed=3)
    np.testing.assert_array_equal(first.vectors, again.vectors)
    assert not np.allclose(first.vectors[0], first.vectors[1]) and "random vectors" in first.note
    np.testing.assert_array_equal(first.vectors[2], [1, 2])


def test_refuse_policy_names_the_missing_tokens():
    with pytest.raises(ValueError, match=r"lacks 12 token\(s\) of the vocabulary \('w0', .*'w9' and 2 more\)"):
        read_glove(GLOVE.encode(), ["cat", *(f"w{i}" for i in range(12))], missing="refuse")


@pytest.mark.parametrize(
    "text, message",
    [
        ("the 0.1 0.2\ncat 1 2 3\n", r"line 2, has 3 values where line 1 has 2: every vector must have the same"),
        ("400000 2\nthe 0.1 0.2\n", "looks like a word2vec header: remove it"),
        ("the 0.1 0.2\ncat 1 x2\n", r"line 2, has 'x2', which is not a number"),
        ("the 0.1 0.2\ncat 1 nan\n", r"line 2, has a value that is not finite"),
        ("the 0.1 0.2\ncat 1 2\nthe 3 4\n", r"lists the token 'the' twice \(lines 1 and 3\)"),
        ("the\n", "holds a token without values"),
        ("bird 1 2\nfish 3 4\n", "shares no token with the vocabulary.*lowercase"),
        ("\n\n \n", "empty"),
    ],
)
def test_bad_files_are_refused_with_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        read_glove(io.BytesIO(text.encode()), ["the", "cat"])


@pytest.mark.parametrize(
    "vocabulary, message",
    [([], "non-empty list"), ("the", "non-empty list"), (["the", ""], "non-empty list"), (["a", "b", "a"], "twice")],
)
def test_bad_vocabularies_are_refused(vocabulary, message):
    with pytest.raises(ValueError, match=message):
        read_glove(GLOVE.encode(), vocabulary)


def test_the_file_goes_through_the_input_gate():
    with pytest.raises(ValueError, match="limit"):
        read_glove(GLOVE.encode(), ["the"], limits=InputLimits(max_bytes=10))
    with pytest.raises(ValueError, match="URL"):
        read_glove("https://nlp.stanford.edu/glove.txt", ["the"])
    with pytest.raises(ValueError, match="`missing` must be one of"):
        read_glove(GLOVE.encode(), ["the"], missing="skip")
