r"""The tokenisers as Keras layers, so a SavedModel takes raw strings and serves without seqlab.

These are preprocessing layers for export, like Keras's own ``TextVectorization``:
they run TensorFlow string ops (``tf.strings``) and ``keras.layers.StringLookup``,
so they need the TensorFlow backend. Each gives the same ids as its Python
tokeniser's ``encode`` (after the same ``Standardize``), padded with ``PAD_ID``
and trimmed like ``Tokenizer.pad_and_mask``. A layer is built from the tokeniser's
``to_dict()``, which is also its config, so a ``.keras`` file reloads it.

Build one with ``tokenizer_layer(tokenizer, sequence_length=..., keep=...)``.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from seqlab.checks import check_int, shown
from seqlab.text.bpe import CHUNK_PATTERN
from seqlab.text.standardize import PUNCTUATION, Standardize, char_class
from seqlab.text.tokenizer import KEEP, PAD, PAD_ID, UNK, Tokenizer

# Put before every BPE chunk, then split on: byte 0xFF never occurs in UTF-8 text.
_CHUNK_MARK = b"\xff"


class TokenizerLayer(keras.layers.Layer):
    r"""Raw strings to padded token ids, inside the graph: the base of the three kinds.

    Equations:
        $$ \mathrm{ids}(s) = \mathrm{pad}_L\big(\mathrm{tokenize}(\mathrm{standardize}(s))\big) $$

        $\mathrm{pad}_L$ appends $\mathrm{PAD} = 0$ up to length $L$, or keeps the
        first (or last) $L$ ids of a longer sequence.

    Args:
        tokenizer: the fitted tokeniser's ``to_dict()`` (or the tokeniser itself).
        sequence_length: $L$; ``None`` pads to the longest string of the batch.
        keep: ``"first"`` or ``"last"``: which ids a longer sequence keeps.

    Call arguments:
        inputs: a string tensor of shape ``(batch,)`` or ``(batch, 1)``.

    Returns:
        int32 ids of shape ``(batch, sequence_length)``.

    Example:
        >>> tok = CharTokenizer().fit(["abc"])
        >>> tokenizer_layer(tok, sequence_length=4)(tf.constant(["cab"])).numpy()
        array([[4, 2, 3, 0]], dtype=int32)
    """

    def __init__(self, tokenizer, sequence_length: int | None = None, keep: str = "first", **kwargs):
        super().__init__(**kwargs)
        self.tokenizer = Tokenizer.from_dict(tokenizer.to_dict() if isinstance(tokenizer, Tokenizer) else tokenizer)
        if self.tokenizer.kind != self.kind:
            raise ValueError(f"{type(self).__name__} runs a {self.kind} tokeniser, got a {self.tokenizer.kind} one.")
        self.sequence_length = None if sequence_length is None else check_int("sequence_length", sequence_length, 1)
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {KEEP}, got {shown(keep)}.")
        self.keep = keep
        vocab = self.tokenizer.vocab
        # StringLookup's layout is ours: mask token 0 = [PAD], one OOV index 1 = [UNK], then the rest.
        self.lookup = keras.layers.StringLookup(vocabulary=vocab[2:], mask_token=PAD, oov_token=UNK)
        self.built = True

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "tokenizer": self.tokenizer.to_dict(),
            "sequence_length": self.sequence_length,
            "keep": self.keep,
        }

    def compute_output_spec(self, inputs):
        return keras.KerasTensor((inputs.shape[0], self.sequence_length), dtype="int32")

    def call(self, inputs):
        strings = tf.convert_to_tensor(inputs, dtype=tf.string)
        if strings.shape.rank == 2:  # (batch, 1), as keras.Input(shape=(1,), dtype="string") gives
            strings = tf.squeeze(strings, axis=-1)
        ids = self._ids(standardize(strings, self.tokenizer.standardize))  # (batch, None) ragged int64
        if self.keep == "last" and self.sequence_length is not None:
            ids = ids[:, -self.sequence_length :]
        return tf.cast(ids.to_tensor(default_value=PAD_ID, shape=[None, self.sequence_length]), tf.int32)

    def detokenize(self, ids) -> tf.Tensor:
        """Token ids ``(batch, n)`` to strings ``(batch,)``, as ``Tokenizer.decode``: padding dropped."""
        ids = tf.convert_to_tensor(ids)
        kept = tf.ragged.boolean_mask(ids, ids != PAD_ID)
        pieces = kept.with_flat_values(tf.gather(tf.constant(self.tokenizer.vocab), kept.flat_values))
        return tf.strings.reduce_join(pieces, axis=-1, separator=self.tokenizer.joiner)

    def _lookup(self, pieces: tf.RaggedTensor) -> tf.RaggedTensor:
        return pieces.with_flat_values(self.lookup(pieces.flat_values))

    def _ids(self, strings: tf.Tensor) -> tf.RaggedTensor:
        """Ragged ids of standardised strings."""
        raise NotImplementedError


def standardize(strings: tf.Tensor, rules: Standardize) -> tf.Tensor:
    """``Standardize.__call__`` in TensorFlow ops (its patterns mean the same in RE2)."""
    if rules.lowercase:
        strings = tf.strings.lower(strings, encoding="utf-8")
    for pattern, replacement in rules.rules():
        strings = tf.strings.regex_replace(strings, pattern, replacement)
    # After collapsing only COLLAPSED_ENDS (" ", "\n") can sit at the ends: tf.strings.strip
    # strips ASCII whitespace, which here is the same.
    return tf.strings.strip(strings) if rules.collapse_whitespace else strings


@keras.saving.register_keras_serializable(package="seqlab")
class CharTokenizerLayer(TokenizerLayer):
    r"""Raw strings to character ids, as ``CharTokenizer.encode``.

    Equations:
        $$ \mathrm{ids}(s) = \big(\mathrm{id}(c_1), \dots, \mathrm{id}(c_n)\big) $$

        $c_i$ the characters of the standardised string; an unseen one is [UNK].

    Args, call arguments and returns: as ``TokenizerLayer``.

    Example:
        >>> CharTokenizerLayer(CharTokenizer().fit(["abc"]).to_dict())(tf.constant(["ca"]))
    """

    kind = "char"

    def _ids(self, strings):
        return self._lookup(tf.strings.unicode_split(strings, "UTF-8"))


@keras.saving.register_keras_serializable(package="seqlab")
class WordTokenizerLayer(TokenizerLayer):
    r"""Raw strings to word ids, as ``WordTokenizer.encode``.

    Equations:
        $$ \mathrm{ids}(s) = \big(\mathrm{id}(w_1), \dots, \mathrm{id}(w_n)\big) $$

        $w_i$ the words and punctuation marks of the standardised string; a rare
        or unseen word is [UNK].

    Args, call arguments and returns: as ``TokenizerLayer``.

    Example:
        >>> WordTokenizerLayer(WordTokenizer().fit(["to be or not"]).to_dict())(tf.constant(["not to be"]))
    """

    kind = "word"

    def _ids(self, strings):
        # Python cuts with WORD_PATTERN; spacing out each punctuation mark and splitting
        # on ASCII whitespace gives the same pieces.
        spaced = tf.strings.regex_replace(strings, char_class(PUNCTUATION), r" \0 ")
        return self._lookup(tf.strings.split(spaced))


@keras.saving.register_keras_serializable(package="seqlab")
class BPETokenizerLayer(TokenizerLayer):
    r"""Raw strings to BPE ids, as ``BPETokenizer.encode``: the merges applied in the order learned.

    Equations:
        $$ (\dots, a, b, \dots) \;\to\; (\dots, ab, \dots) \quad \text{for merge } r = 1, \dots, R $$

        Each chunk is written as its ids, ``<12><7><3>``; merge $r$ of ``(a, b)`` is
        the literal replacement of ``<id(a)><id(b)>`` by ``<id(ab)>``, left to right,
        in a ``tf.while_loop`` over the $R$ merges.

    Args, call arguments and returns: as ``TokenizerLayer``.

    Example:
        >>> BPETokenizerLayer(BPETokenizer(vocab_size=20).fit(["low lower"] * 3).to_dict())(tf.constant(["lowest"]))
    """

    kind = "bpe"

    def __init__(self, tokenizer, sequence_length=None, keep="first", **kwargs):
        super().__init__(tokenizer, sequence_length, keep, **kwargs)
        index = {token: i for i, token in enumerate(self.tokenizer.vocab)}
        self._patterns = [f"<{index[a]}><{index[b]}>" for a, b in self.tokenizer.merges]
        self._rewrites = [f"<{index[a + b]}>" for a, b in self.tokenizer.merges]

    def _ids(self, strings):
        marked = tf.strings.regex_replace(strings, CHUNK_PATTERN, _CHUNK_MARK + rb"\0")
        chunks = tf.strings.split(marked, sep=_CHUNK_MARK)[:, 1:]  # (batch, chunks); the first piece is empty
        char_ids = self._lookup(tf.strings.unicode_split(chunks.flat_values, "UTF-8"))  # (chunks, chars)
        written = tf.strings.reduce_join(tf.strings.join(["<", tf.strings.as_string(char_ids), ">"]), axis=-1)
        merged = self._merge(written)  # (chunks,) strings "<id><id>..."
        digits = tf.strings.split(tf.strings.regex_replace(merged, "><", " "))  # "<12> <7>" -> ["<12", "7>"]
        token_ids = tf.strings.to_number(tf.strings.regex_replace(digits, "[<>]", ""), tf.int64)
        per_chunk = tf.RaggedTensor.from_row_splits(token_ids, chunks.row_splits)  # (batch, chunks, ids)
        return per_chunk.merge_dims(1, 2)  # (batch, ids)

    def _merge(self, written: tf.Tensor) -> tf.Tensor:
        if not self._patterns:
            return written
        patterns, rewrites = tf.constant(self._patterns), tf.constant(self._rewrites)

        def step(r, text):
            return r + 1, tf.strings.regex_replace(text, patterns[r], rewrites[r])

        return tf.while_loop(lambda r, _: r < len(self._patterns), step, (tf.constant(0), written))[1]


_LAYERS = {cls.kind: cls for cls in (CharTokenizerLayer, WordTokenizerLayer, BPETokenizerLayer)}


def tokenizer_layer(tokenizer: Tokenizer, sequence_length: int | None = None, keep: str = "first") -> TokenizerLayer:
    """The Keras layer that runs ``tokenizer`` (fitted) inside a model; see ``TokenizerLayer``."""
    return _LAYERS[tokenizer.kind](tokenizer.to_dict(), sequence_length=sequence_length, keep=keep)
