"""The in-graph tokenisers give the Python tokenisers' ids, reload from .keras, and serve without seqlab."""

import json
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from seqlab.text import BPETokenizer, CharTokenizer, Standardize, WordTokenizer
from seqlab.text.layers import BPETokenizerLayer, standardize, tokenizer_layer
from tests.text.conftest import TRICKY, VERSE

SERVED = [*TRICKY, "Whether 'tis nobler in the mind to suffer — жж", "the slings\tand ARROWS"]


def fitted(kind, pydoc_text, **options):
    make = {"char": CharTokenizer, "word": WordTokenizer, "bpe": BPETokenizer}[kind]
    return make(**options).fit([VERSE, pydoc_text[:50_000]])


def padded(tok, texts, length, keep="first"):
    return tok.pad_and_mask([tok.encode(t) for t in texts], length, keep=keep)[0]


@pytest.mark.parametrize(
    "rules", [Standardize(), Standardize(lowercase=False, strip_punctuation=True, collapse_whitespace=False)]
)
def test_standardisation_in_the_graph_equals_python(rules):
    got = [s.decode() for s in standardize(tf.constant(SERVED), rules).numpy()]
    assert got == [rules(text) for text in SERVED]


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
@pytest.mark.parametrize("keep", ["first", "last"])
def test_layer_ids_equal_python_encode(kind, keep, pydoc_text):
    tok = fitted(kind, pydoc_text, standardize=Standardize(strip_punctuation=kind == "word"))
    layer = tokenizer_layer(tok, sequence_length=12, keep=keep)
    np.testing.assert_array_equal(layer(tf.constant(SERVED)).numpy(), padded(tok, SERVED, 12, keep))
    unpadded = tokenizer_layer(tok)(tf.constant(SERVED[:3])).numpy()
    longest = max(len(tok.encode(t)) for t in SERVED[:3])
    np.testing.assert_array_equal(unpadded, padded(tok, SERVED[:3], longest))


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_detokenize_in_the_graph_equals_python_decode(kind, pydoc_text):
    tok = fitted(kind, pydoc_text)
    ids = padded(tok, SERVED, 12)  # padding after the shorter ones, [UNK] in the tricky ones
    got = [s.decode() for s in tokenizer_layer(tok).detokenize(tf.constant(ids)).numpy()]
    assert got == [tok.decode(row) for row in ids] and any("[UNK]" in text for text in got)


def test_bpe_layer_on_a_long_text_equals_python(pydoc_text):
    tok = BPETokenizer(vocab_size=400).fit(pydoc_text)
    texts = [pydoc_text[i : i + 3000] for i in (0, 100_000, 300_000)]
    layer = tokenizer_layer(tok, sequence_length=2000)
    np.testing.assert_array_equal(layer(tf.constant(texts)).numpy(), padded(tok, texts, 2000))


def test_layer_takes_batch_by_one_input_and_reloads_from_a_keras_file(tmp_path, pydoc_text):
    tok = fitted("bpe", pydoc_text, vocab_size=200)
    inputs = keras.Input(shape=(1,), dtype="string")
    model = keras.Model(inputs, tokenizer_layer(tok, sequence_length=8)(inputs))
    model.save(tmp_path / "m.keras")
    again = keras.models.load_model(tmp_path / "m.keras")
    layer = again.layers[-1]
    assert isinstance(layer, BPETokenizerLayer) and layer.tokenizer.to_dict() == tok.to_dict()
    batch = tf.constant([[t] for t in SERVED])
    np.testing.assert_array_equal(again(batch).numpy(), padded(tok, SERVED, 8))


def test_a_layer_of_the_wrong_kind_is_refused(pydoc_text):
    with pytest.raises(ValueError, match="runs a bpe tokeniser, got a char one"):
        BPETokenizerLayer(fitted("char", pydoc_text).to_dict())


def test_savedmodel_serves_raw_strings_in_a_fresh_process_without_seqlab(tmp_path, pydoc_text):
    tokenizers = {
        "char": fitted("char", pydoc_text),
        "word": fitted("word", pydoc_text, vocab_size=300, min_count=2),
        "bpe": fitted("bpe", pydoc_text, vocab_size=300),
    }
    inputs = keras.Input(shape=(), dtype="string")
    outputs = {kind: tokenizer_layer(tok, sequence_length=16, keep="last")(inputs) for kind, tok in tokenizers.items()}
    keras.Model(inputs, outputs).export(str(tmp_path / "served"), verbose=False)
    script = f"""
import sys, json
import tensorflow as tf
served = tf.saved_model.load({str(tmp_path / 'served')!r})
out = served.serve(tf.constant({SERVED!r}))
print(json.dumps({{"seqlab": "seqlab" in sys.modules, **{{k: v.numpy().tolist() for k, v in out.items()}}}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result.pop("seqlab") is False
    assert sorted(result) == ["bpe", "char", "word"]
    for kind, tok in tokenizers.items():
        assert result[kind] == padded(tok, SERVED, 16, keep="last").tolist(), kind
