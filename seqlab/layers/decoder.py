"""The decoder of an encoder-decoder: one target token a step, reading the encoder's states through attention.

The encoder has read the source into states (Bahdanau's $h_j$, Luong's $\bar z_s$); its last state starts the
decoder. Each step reads the embedding of the previous target token ($y_{t-1}$, ``[START]`` first) and gives the
next token's probabilities; ``AttentionDecoder``'s docstring has the equations of each kind of attention.
Training uses teacher forcing: $y_{t-1}$ is the true previous token. With ``teacher_forcing`` $r < 1$ each step
takes the model's own previous choice instead with probability $1 - r$ (scheduled sampling), so it learns to
recover from its own mistakes (exposure bias). Decoding calls ``step`` once per token.
"""

from __future__ import annotations

import keras
from keras import ops

from seqlab.layers.docs import equations
from seqlab.layers.attention import AttentionalState, BahdanauAttention, LocalAttention, LuongAttention
from seqlab.layers.recurrent import GRUCell, LSTMCell, SimpleRNNCell

CELLS = {"simple_rnn": SimpleRNNCell, "lstm": LSTMCell, "gru": GRUCell}
ATTENTIONS = ("none", "bahdanau", "luong", "local")
SCORES = ("dot", "general", "concat")


@keras.saving.register_keras_serializable(package="seqlab")
class AttentionDecoder(keras.layers.Layer):
    r"""A recurrent decoder over target token ids, with Bahdanau, Luong global or local attention or none.

    Equations:
        Without attention, the encoder's last state is the only context (the notes' $z_t$, $W_s$):

        $$ z_t = f(z_{t-1}, y_{t-1}), \quad p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W_s z_t) $$

        Bahdanau asks with the state before the step, $s_{i-1}$:

        $$ c_i = \sum_j a_{ij} h_j, \quad s_i = f(s_{i-1}, [y_{i-1} ; c_i]), \quad
           p(y_i \mid y_{<i}, x) = \mathrm{softmax}(W_s [s_i ; c_i]) $$

        Luong (global, or local around $p_t$) asks with the state after it; its attentional state gives the
        token, and input feeding passes $\tilde z_{t-1}$ on to the next step:

        $$ z_t = f(z_{t-1}, [y_{t-1} ; \tilde z_{t-1}]), \quad c_t = \sum_s \mathrm{align}(z_t, \bar z_s)\, \bar z_s,
           \quad \tilde z_t = \tanh(W_c [c_t ; z_t]), \quad p(y_t \mid y_{<t}, x) = \mathrm{softmax}(W_s \tilde z_t) $$

    Args:
        vocab_size: $V$, the target vocabulary (its ids 0 = padding, 2 = ``[START]``).
        embedding_dim: the size of a target token's embedding.
        cell: ``"simple_rnn"``, ``"lstm"`` or ``"gru"`` (seqlab's cells).
        units: the state size of every layer (the encoder's, so its last states start the decoder).
        layers: stacked decoder layers, 1 to 4; attention reads with the top one.
        attention: ``"none"``, ``"bahdanau"``, ``"luong"`` or ``"local"``.
        score: Luong's score, ``"dot"``, ``"general"`` or ``"concat"`` (global and local).
        predictive: local attention: local-p (predicted $p_t$) instead of local-m ($p_t = t$).
        half_width: local attention's $D$ (window $[p_t - D, p_t + D]$, $\sigma = D / 2$).
        input_feeding: Luong: $\tilde z_{t-1}$ joins the next step's input.
        teacher_forcing: $r$, the probability of feeding the true previous token in training.
        dropout: dropout on the embeddings and on what the output layer reads, in training.

    Call arguments:
        target_in: ``(B, L)`` ids, ``[START]`` then the target shifted right (teacher forcing).
        values: ``(B, S, units)``, the encoder's top states.
        source_mask: ``(B, S)`` booleans, False on the source's padding.
        states: the encoder's last states, layer by layer (``h``, or ``h, c`` for an LSTM), in one flat list.

    Returns:
        ``(B, L, V)`` probabilities of the next target token at every step, masked where ``target_in`` is
        padding; ``step`` gives one step's ``(B, V)`` and the new states.

    Example:

    ```python
    decoder = AttentionDecoder(vocab_size=12, units=8, attention="luong", score="dot")
    target_in = np.array([[2, 5, 7, 0]])  # [START], two tokens, padding
    values = np.random.rand(1, 6, 8).astype("float32")  # the encoder's states h_j, S = 6
    source_mask = np.array([[True] * 4 + [False] * 2])
    p = decoder(target_in, values, source_mask, [np.zeros((1, 8), "float32")])  # (1, 4, 12)
    ```
    """

    def __init__(self, vocab_size, embedding_dim=32, cell="gru", units=64, layers=1, attention="bahdanau",
                 score="general", predictive=False, half_width=3, input_feeding=True, teacher_forcing=1.0,
                 dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {', '.join(CELLS)}, got {cell!r}.")
        if attention not in ATTENTIONS:
            raise ValueError(f"attention must be one of {', '.join(ATTENTIONS)}, got {attention!r}.")
        if score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {score!r}.")
        if not 1 <= int(layers) <= 4:
            raise ValueError(f"layers must be 1 to 4, got {layers}.")
        if not 0.0 <= float(teacher_forcing) <= 1.0:
            raise ValueError(f"teacher_forcing is a probability in [0, 1], got {teacher_forcing}.")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}.")
        self.vocab_size, self.embedding_dim, self.cell_name = int(vocab_size), int(embedding_dim), cell
        self.units, self.layers, self.attention = int(units), int(layers), attention
        self.score, self.predictive, self.half_width = score, bool(predictive), int(half_width)
        self.input_feeding = bool(input_feeding) and attention in ("luong", "local")
        self.teacher_forcing, self.dropout, self.seed = float(teacher_forcing), float(dropout), seed
        self.embedding = keras.layers.Embedding(self.vocab_size, self.embedding_dim, name="target_embedding")
        self.cells = [CELLS[cell](self.units, name=f"decoder_{cell}_{i + 1}") for i in range(self.layers)]
        self.reader = self._attention_layer()
        self.attentional = AttentionalState(self.units, name="attentional_state") if self.luong else None
        self.output_layer = keras.layers.Dense(self.vocab_size, name="next_token")
        self.drop = keras.layers.Dropout(self.dropout, seed=seed)
        self.sampler = keras.random.SeedGenerator(seed)

    def own_equations(self) -> list[str]:
        """The docstring's equations of this decoder's kind of attention (the others are not what it computes)."""
        return [equations(type(self))[{"none": 0, "bahdanau": 1}.get(self.attention, 2)]]

    @property
    def luong(self) -> bool:
        return self.attention in ("luong", "local")

    def _attention_layer(self):
        if self.attention == "bahdanau":
            return BahdanauAttention(self.units, name="bahdanau_attention")
        concat = self.units if self.score == "concat" else None  # the concat score has its own units
        if self.attention == "luong":
            return LuongAttention(score=self.score, units=concat, name="luong_attention")
        if self.attention == "local":  # so do local-p's W_p
            return LocalAttention(score=self.score, half_width=self.half_width, predictive=self.predictive,
                                  units=self.units if self.predictive else concat, name="local_attention")
        return None

    def build(self, target_in_shape, values_shape=None, source_mask_shape=None, states_shape=None):
        # Every sublayer builds on one step over zeros: their shapes follow from units and vocab_size alone
        # (also when a saved model is rebuilt from its config before its weights are loaded).
        values = ops.zeros((1, 1, self.units))
        states = [list(cell.get_initial_state(1)) for cell in self.cells]
        feed = self.start_feed(values) if self.input_feeding else None
        self.step(ops.zeros((1,), "int32"), states, values, ops.ones((1, 1), "bool"), 0, feed)
        self.built = True

    # -- one step

    def start_feed(self, values):
        """$\\tilde z_0 = 0$: what input feeding passes to the first step."""
        return ops.zeros((ops.shape(values)[0], self.units), dtype=values.dtype)

    def step(self, previous, states, values, source_mask, t, feed=None, training=False):
        """One target token: ``previous`` ids ``(B,)``, the layers' states and the input feed.

        Returns ``(probabilities (B, V), states, feed, weights (B, S) or None, p_t (B,) or None)``.
        """
        y = self.drop(self.embedding(previous), training=training)  # (B, e)
        weights = position = context = None
        if self.attention == "bahdanau":  # asks with s_{i-1}, before the step
            context, weights = self.reader(states[-1][0], values, mask=source_mask)
            y = ops.concatenate([y, context], axis=-1)
        elif self.input_feeding:
            y = ops.concatenate([y, feed], axis=-1)
        new_states = []
        for cell, state in zip(self.cells, states):
            y, state = cell(y, state, training=training)
            new_states.append(list(state))
        if self.attention == "bahdanau":
            top = ops.concatenate([y, context], axis=-1)
        elif self.luong:  # asks with z_t, after the step
            if self.attention == "local":
                # local-m: p_t = t (t a tensor inside the decoding loop)
                given = None if self.predictive else ops.full((ops.shape(y)[0],), ops.cast(t, "float32"))
                context, weights, position = self.reader(y, values, mask=source_mask, position=given)
            else:
                context, weights = self.reader(y, values, mask=source_mask)
            top = feed = self.attentional(context, y)
        else:
            top = y
        logits = self.output_layer(self.drop(top, training=training))
        return ops.softmax(logits, axis=-1), new_states, feed, weights, position

    # -- the whole target, teacher-forced

    def group(self, states) -> list[list]:
        """A flat list of states (``h``, or ``h, c`` per layer) as one list per layer."""
        size = 2 if self.cell_name == "lstm" else 1
        if len(states) != size * self.layers:
            raise ValueError(f"The decoder takes {size * self.layers} states ({self.layers} {self.cell_name} "
                             f"layer(s)), got {len(states)}: the encoder must have as many layers and cells.")
        return [list(states[i : i + size]) for i in range(0, len(states), size)]

    def call(self, target_in, values, source_mask, states, training=False):
        # A symbolic loop over the target (ops.scan), not L unrolled steps: the training step's graph holds one
        # decoder step, so it is traced and optimised once (an unrolled 28-step Bahdanau decoder took 20 s).
        batch = ops.shape(target_in)[0]
        carry = {"states": self.group(list(states)), "last": ops.zeros((batch, self.vocab_size), values.dtype),
                 "t": ops.convert_to_tensor(0, "int32")}
        if self.input_feeding:
            carry["feed"] = self.start_feed(values)

        def decode(carry, previous):
            t = carry["t"]
            if training and self.teacher_forcing < 1.0:  # scheduled sampling: sometimes its own choice
                own = ops.cast(ops.argmax(carry["last"], axis=-1), previous.dtype)
                keep = keras.random.uniform(ops.shape(previous), seed=self.sampler) < self.teacher_forcing
                previous = ops.where(ops.logical_or(keep, t == 0), previous, own)  # [START] is always given
            probabilities, states, feed, _, _ = self.step(previous, carry["states"], values, source_mask, t,
                                                          carry.get("feed"), training=training)
            carry = {"states": states, "last": probabilities, "t": t + 1}
            carry = {**carry, "feed": feed} if self.input_feeding else carry
            return carry, carry  # TensorFlow's scan stacks outputs shaped as the carry: "last" is the one read

        _, steps = ops.scan(decode, carry, ops.transpose(target_in))
        return ops.transpose(steps["last"], (1, 0, 2))  # (L, B, V) -> (B, L, V)

    def compute_mask(self, target_in, values=None, source_mask=None, states=None, previous_mask=None):
        return ops.not_equal(target_in, 0)  # [START], the target's tokens: every real output step, EOS included

    def compute_output_shape(self, target_shape, *args, **kwargs):
        return (*target_shape, self.vocab_size)

    def get_config(self):
        return {
            **super().get_config(),
            "vocab_size": self.vocab_size, "embedding_dim": self.embedding_dim, "cell": self.cell_name,
            "units": self.units, "layers": self.layers, "attention": self.attention, "score": self.score,
            "predictive": self.predictive, "half_width": self.half_width, "input_feeding": self.input_feeding,
            "teacher_forcing": self.teacher_forcing, "dropout": self.dropout, "seed": self.seed,
        }
