"""The decoder of an encoder-decoder Transformer: target ids, their positions, N decoder blocks, the next token.

The Transformer's counterpart of ``seqlab.layers.decoder.AttentionDecoder``: the same call (the target shifted
right, the encoder's outputs and the source mask in, every next token's probabilities out), so a translate model
trains, scores and decodes alike whichever decoder it has. Training reads the whole target at once (the causal
mask stands in for "one token at a time"); decoding calls ``step`` once per token, with a key/value cache per
block, and ``seqlab.models.transformer_seq2seq_steps`` turns that into the decoders' ``next``.
"""

from __future__ import annotations

import keras
from keras import ops

from seqlab.layers.docs import equations
from seqlab.layers.transformer import LearnedPositionalEmbedding, SinusoidalPositionalEncoding, TransformerDecoderBlock

POSITIONS = ("sinusoidal", "learned", "none")


@keras.saving.register_keras_serializable(package="seqlab")
class TransformerDecoder(keras.layers.Layer):
    r"""A Transformer decoder over target token ids: causal self-attention, cross-attention on the source.

    Equations:
        $$ \mathbf{x}_t = E\, y_{t-1} + \mathrm{PosEnc}(t), \qquad
           \mathbf{x} \leftarrow \mathrm{DecoderBlock}_l(\mathbf{x}, \mathbf{c}), \; l = 1 \dots N $$

        $$ p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W_s \mathbf{x}_t) $$

        Each block's causal self-attention lets position $t$ read $y_0 \dots y_{t-1}$ only, so the whole
        teacher-forced target is read at once; its cross-attention's queries come from the target, its keys and
        values from the encoder's outputs $\mathbf{c}$ (padding weighted 0). Pre-norm adds a last layer norm.

    Args:
        vocab_size: $V$, the target vocabulary (its ids 0 = padding, 2 = ``[START]``).
        max_length: $L$, the longest target (learned positions and the key/value cache have $L$ slots).
        layers: $N$, the number of decoder blocks.
        heads: $h$, attention heads per block.
        width: $d$, the model width (the target embeddings' and the encoder outputs').
        ff_units: the feed-forward network's hidden width.
        multi_head: ``"split"`` ($d_k = d / h$) or ``"full"`` ($d_k = d$), the notes' two options.
        norm: ``"post"`` (the original Transformer) or ``"pre"`` (GPT-2).
        dropout: dropout on the embeddings and inside the blocks, in training.
        positions: ``"sinusoidal"``, ``"learned"`` or ``"none"``.

    Call arguments:
        target_in: ``(B, L)`` ids, ``[START]`` then the target shifted right (teacher forcing).
        values: ``(B, S, d)``, the encoder's outputs $\mathbf{c}$.
        source_mask: ``(B, S)`` booleans, False on the source's padding.

    Returns:
        ``(B, L, V)`` probabilities of the next target token at every step, masked where ``target_in`` is
        padding; ``step`` gives one step's ``(B, V)`` and the new caches, ``attention`` the last block's
        cross-attention weights ``(B, h, L, S)`` beside the probabilities.

    Example:

    ```python
    decoder = TransformerDecoder(vocab_size=12, max_length=4, layers=1, heads=2, width=8, ff_units=16)
    target_in = np.array([[2, 5, 7, 0]])  # [START], two tokens, padding
    values = np.random.rand(1, 6, 8).astype("float32")  # the encoder's outputs, S = 6
    source_mask = np.array([[True] * 4 + [False] * 2])
    p = decoder(target_in, values, source_mask)  # (1, 4, 12)
    ```
    """

    def __init__(self, vocab_size, max_length, layers=2, heads=4, width=64, ff_units=128, multi_head="split",
                 norm="post", dropout=0.0, positions="sinusoidal", **kwargs):
        super().__init__(**kwargs)
        if positions not in POSITIONS:
            raise ValueError(f"positions must be one of {', '.join(POSITIONS)}, got {positions!r}.")
        if int(layers) < 1:
            raise ValueError(f"layers must be at least 1, got {layers}.")
        self.vocab_size, self.max_length, self.layers = int(vocab_size), int(max_length), int(layers)
        self.heads, self.width, self.ff_units = int(heads), int(width), int(ff_units)
        self.multi_head, self.norm, self.dropout, self.positions = multi_head, norm, float(dropout), positions
        self.embedding = keras.layers.Embedding(self.vocab_size, self.width, name="target_embedding")
        self.position_layer = {
            "sinusoidal": lambda: SinusoidalPositionalEncoding(name="target_positions"),
            "learned": lambda: LearnedPositionalEmbedding(self.max_length, name="target_positions"),
            "none": lambda: None,
        }[positions]()
        self.drop = keras.layers.Dropout(self.dropout)
        self.blocks = [
            TransformerDecoderBlock(self.heads, self.ff_units, option=multi_head, norm=norm, dropout=self.dropout,
                                    name=f"decoder_{i + 1}")
            for i in range(self.layers)
        ]
        # Pre-norm leaves the residual stream unnormalised: one last layer norm, as GPT-2.
        self.final_norm = keras.layers.LayerNormalization(epsilon=1e-5, name="final_norm") if norm == "pre" else None
        self.output_layer = keras.layers.Dense(self.vocab_size, name="next_token")

    def own_equations(self) -> list[str]:
        """The equations this decoder computes: its own, then its blocks'."""
        return equations(type(self)) + equations(TransformerDecoderBlock)

    @property
    def reader(self):
        """No separate attention layer: the cross-attention lives in the blocks (``own_equations`` lists it)."""
        return None

    def build(self, target_in_shape, values_shape=None, source_mask_shape=None):
        # Every sublayer builds on zeros: a saved model rebuilt from its config has its weights before loading them.
        width = self.width if values_shape is None else values_shape[-1]
        self.attention(ops.ones((1, 1), "int32"), ops.zeros((1, 1, width)), ops.ones((1, 1), "bool"))
        self.built = True

    # -- the whole target, teacher-forced

    def embed(self, ids, start=0, training=None):
        """``E y + PosEnc``: the ids ``(B, n)`` at positions ``start .. start+n-1`` as ``(B, n, d)``."""
        x = self.embedding(ids)
        if self.position_layer is not None:
            x = self.position_layer(x, start=start)
        return self.drop(x, training=training)

    def next_token(self, x):
        """The next token's probabilities from the top block's output."""
        if self.final_norm is not None:
            x = self.final_norm(x)
        return ops.softmax(self.output_layer(x), axis=-1)

    def attention(self, target_in, values, source_mask, scores=True, training=None):
        """``(probabilities (B, L, V), the last block's cross-attention weights (B, h, L, S) or None)``."""
        x, weights = self.embed(target_in, training=training), None
        for block in self.blocks:
            out = block(x, values, context_mask=source_mask, return_attention_scores=scores, training=training)
            x, weights = (out[0], out[1]["cross"]) if scores else (out, None)
        return self.next_token(x), weights

    def call(self, target_in, values, source_mask, training=None):
        return self.attention(target_in, values, source_mask, scores=False, training=training)[0]

    def compute_mask(self, target_in, values=None, source_mask=None, previous_mask=None):
        return ops.not_equal(target_in, 0)  # [START], the target's tokens: every real output step, EOS included

    def compute_output_shape(self, target_shape, *args, **kwargs):
        return (*target_shape, self.vocab_size)

    # -- one token at a time, with a key/value cache per block

    def init_cache(self, batch_size):
        """Every block's empty self-attention cache, ``[(k, v)]``, each ``(B, h, L, d_k)``."""
        return [block.init_cache(batch_size, self.max_length) for block in self.blocks]

    def step(self, previous, caches, position, values, source_mask):
        """One target token: ``previous`` ids ``(B,)`` at ``position`` (0 for ``[START]``), the blocks' caches.

        Returns ``(probabilities (B, V), new caches)``; equal to ``call``'s row ``position``.
        """
        x = self.embed(ops.expand_dims(previous, 1), start=position)
        new = []
        for block, cache in zip(self.blocks, caches):
            x, cache = block.step(x, cache, position, context=values, context_mask=source_mask)
            new.append(cache)
        return self.next_token(x)[:, 0], new

    def get_config(self):
        return {
            **super().get_config(),
            "vocab_size": self.vocab_size, "max_length": self.max_length, "layers": self.layers,
            "heads": self.heads, "width": self.width, "ff_units": self.ff_units, "multi_head": self.multi_head,
            "norm": self.norm, "dropout": self.dropout, "positions": self.positions,
        }
