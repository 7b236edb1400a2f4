r"""Luong's global attention: the decoder state z_t scores every source state with dot, general or concat."""

import keras
from keras import ops

from seqlab.layers.attention.base import QueryAttention
from seqlab.layers.attention.scores import additive_score, dot_score, general_score
from seqlab.layers.embedding.arguments import check_size

ATTENTION_SCORES = ("dot", "general", "concat")


def check_score(score):
    """Returns `score` if it is one of Luong's score names, else raises ValueError."""
    if score not in ATTENTION_SCORES:
        raise ValueError(f"Argument `score` must be one of {ATTENTION_SCORES}. Received: score={score!r}")
    return score


def check_units(units, used, users):
    """`units` as a positive integer or None; an error when no part of the layer would use it."""
    if units is None:
        return None
    units = check_size("units", units)
    if not used:
        raise ValueError(
            f"Argument `units` is used by {users} only; leave it None here. Received: units={units!r}"
        )
    return units


@keras.saving.register_keras_serializable(package="seqlab")
class LuongAttention(QueryAttention):
    r"""Global attention: every source state $\bar{\mathbf{z}}_s$ scored against the decoder state $\mathbf{z}_t$.

    Equations:
        $$ \mathrm{score}(\mathbf{z}_t, \bar{\mathbf{z}}_s) = \begin{cases}
           \mathbf{z}_t^T \bar{\mathbf{z}}_s & \text{dot} \\
           \mathbf{z}_t^T W_a \bar{\mathbf{z}}_s & \text{general} \\
           v_a^T \tanh\left(W_a [\mathbf{z}_t ; \bar{\mathbf{z}}_s]\right) & \text{concat}
           \end{cases} $$

        $$ a_t(s) = \mathrm{align}(\mathbf{z}_t, \bar{\mathbf{z}}_s)
           = \frac{\exp(\mathrm{score}(\mathbf{z}_t, \bar{\mathbf{z}}_s))}
                  {\sum_{s'} \exp(\mathrm{score}(\mathbf{z}_t, \bar{\mathbf{z}}_{s'}))} $$

        $$ \mathbf{c}_t = \sum_s a_t(s) \, \bar{\mathbf{z}}_s $$

        The query $\mathbf{z}_t$ is the decoder's state at step $t$ (after the
        step, unlike Bahdanau's); the source states $\bar{\mathbf{z}}_s$ are
        both keys and values. `dot` adds no weight and needs $d_q = d_v$;
        `general` learns $W_a$ `(d_q, d_v)`; `concat` learns $W_a$, stored as
        `(d_q + d_v, units)` (query rows first), and $v_a$ `(units,)`. Padded
        source positions get $a_t(s) = 0$ exactly. `AttentionalState` then
        forms $\tilde{\mathbf{z}}_t$ from $\mathbf{c}_t$ and $\mathbf{z}_t$.

    Args:
        score: `"dot"` (default), `"general"` or `"concat"`.
        units: Positive integer, the hidden width of the `concat` score;
            None (default) takes $d_q$. Must be None for `dot` and `general`.

    Call arguments:
        query: `(batch, d_q)`, the decoder state $\mathbf{z}_t$, or a sequence
            of them `(batch, T, d_q)` (a teacher-forced target at once).
        values: `(batch, S, d_v)`, the source states $\bar{\mathbf{z}}_s$.
        mask: Optional `(batch, S)` booleans, False on padded source positions.

    Returns:
        `(context, weights)`: $\mathbf{c}_t$ `(batch, d_v)` and $a_t$
        `(batch, S)`, or `(batch, T, d_v)` and `(batch, T, S)` for a sequence.

    Example:

    ```python
    attention = LuongAttention(score="general")
    z_bar = np.random.rand(2, 5, 4).astype("float32")  # source states, S = 5
    z = np.random.rand(2, 3, 4).astype("float32")  # decoder states, T = 3
    c, a = attention(z, z_bar, mask=np.array([[True] * 5, [True] * 2 + [False] * 3]))  # (2, 3, 4), (2, 3, 5)
    ```
    """

    def __init__(self, score="dot", units=None, **kwargs):
        super().__init__(**kwargs)
        self.score_name = check_score(score)
        self.units = check_units(units, used=score == "concat", users="the 'concat' score")

    def build(self, query_shape, values_shape):
        super().build(query_shape, values_shape)
        d_q, d_v = query_shape[-1], values_shape[-1]
        if self.score_name == "dot" and d_q != d_v:
            raise ValueError(
                f"The 'dot' score needs queries and values of the same width; received d_q={d_q} and d_v={d_v}. "
                "Use score='general' or 'concat', or give the decoder as many units as the encoder's states."
            )
        if self.score_name == "general":
            self.W_a = self.add_weight(shape=(d_q, d_v), name="W_a", initializer="glorot_uniform")
        elif self.score_name == "concat":
            units = self.units or d_q
            self.W_a = self.add_weight(shape=(d_q + d_v, units), name="W_a", initializer="glorot_uniform")
            self.v_a = self.add_weight(shape=(units,), name="v_a", initializer="glorot_uniform")

    def score(self, queries, values):
        r"""$\mathrm{score}(\mathbf{z}_t, \bar{\mathbf{z}}_s)$, `(B, T, S)`."""
        if self.score_name == "dot":
            return dot_score(queries, values)
        if self.score_name == "general":
            return general_score(queries, values, self.W_a)
        d_q = queries.shape[-1]
        # W_a [z_t ; z_bar_s] = (query rows of W_a) z_t + (value rows of W_a) z_bar_s
        return additive_score(ops.matmul(queries, self.W_a[:d_q]), ops.matmul(values, self.W_a[d_q:]), self.v_a)

    def get_config(self):
        return {**super().get_config(), "score": self.score_name, "units": self.units}
