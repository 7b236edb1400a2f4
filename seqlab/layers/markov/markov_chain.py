r"""Markov chain of order k over token ids, fitted by counting, with add-alpha smoothing and backoff."""

import numbers

import keras
import numpy as np
from keras import ops

from seqlab import decoding

MAX_ORDER = 5


def check_integer(name, value, low, high=None):
    """Returns `value` as an int if it is an integer in [low, high], else raises ValueError naming it."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    ok = ok and low <= value and (high is None or value <= high)
    if not ok:
        interval = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"Argument `{name}` must be an integer {interval}. Received: {name}={value!r}")
    return int(value)


def token_sequences(token_ids, vocab_size, name="token_ids"):
    """The sequences of `token_ids` as a list of int64 NumPy arrays, each checked against the vocabulary.

    `token_ids` is one sequence (1-D), equal-length rows (2-D) or a list of
    1-D sequences of any lengths; ids must be integers in [0, vocab_size).
    """
    if isinstance(token_ids, (list, tuple)) and token_ids and np.ndim(token_ids[0]) == 1:
        rows = [np.asarray(row) for row in token_ids]
    else:
        array = np.asarray(token_ids)
        if array.ndim not in (1, 2):
            raise ValueError(
                f"`{name}` must be one sequence (1-D), rows of ids (2-D) or a list of 1-D sequences. "
                f"Received an array of shape {array.shape}."
            )
        rows = [array] if array.ndim == 1 else list(array)
    sequences = []
    for i, row in enumerate(rows):
        if row.ndim != 1 or row.size == 0:
            raise ValueError(f"Sequence {i} of `{name}` must be a non-empty 1-D run of ids; got shape {row.shape}.")
        if not np.issubdtype(row.dtype, np.integer):
            raise ValueError(f"`{name}` must hold integer token ids; sequence {i} has dtype {row.dtype}.")
        if row.min() < 0 or row.max() >= vocab_size:
            bad = row[(row < 0) | (row >= vocab_size)][0]
            raise ValueError(
                f"Token id {bad} in sequence {i} of `{name}` lies outside the vocabulary [0, {vocab_size}); "
                "encode the text with the tokeniser the model was built for."
            )
        sequences.append(row.astype(np.int64))
    return sequences


def level_offsets(sizes, vocab_size):
    """Where the keys of each gram length start: n-grams run over `offsets[n-1] + [0, size(n-1) * V)`.

    `sizes[n-1]` is the number of distinct n-grams (the empty 0-gram is one).
    """
    return np.cumsum([0, vocab_size, *(size * vocab_size for size in sizes[:-1])]).tolist()


def count_grams(sequences, order, vocab_size):
    r"""Counts every n-gram of length 1..order+1 that lies inside one sequence.

    An n-gram is named by an integer key, level by level: the gram
    $(x_{t-n+1}, \dots, x_t)$ has key `offsets[n-1] + prefix * V + x_t`,
    where `prefix` is the rank of its (n-1)-gram prefix among the distinct
    (n-1)-grams (the empty prefix has rank 0). Keys stay below
    (order + 1) * tokens * V, so they fit in int64 for any vocabulary, and
    storage is one entry per distinct gram, never a dense V^k table (65
    characters at order 5 would be 65^6 = 7.5e10 cells).

    Returns:
        `(keys, counts, totals, sizes)`: sorted int64 keys and their counts
        for all levels; `totals[c]` how often context c (level 0 first, the
        empty context, then the grams of length 1..order, in key order) is
        followed by a token; `sizes[n-1]` the number of distinct n-grams.
    """
    x = np.concatenate(sequences)
    # Position of each token inside its sequence: an n-gram ends at t only if pos[t] >= n - 1.
    lengths = [len(s) for s in sequences]
    pos = np.arange(len(x)) - np.repeat(np.cumsum([0, *lengths[:-1]]), lengths)
    prefix = np.zeros(len(x), dtype=np.int64)  # rank of the (n-1)-gram ending at t-1; level 0: the empty context
    keys, counts, sizes = [], [], []
    for n in range(1, order + 2):
        valid = pos >= n - 1
        if not valid.any():
            raise ValueError(
                f"No sequence has more than {n - 1} tokens, so an order-{order} Markov chain cannot be "
                f"fitted; give a corpus longer than the context ({order + 1} tokens or more) or lower `order`."
            )
        unique, inverse, level_counts = np.unique(
            (prefix * vocab_size + x)[valid], return_inverse=True, return_counts=True
        )
        keys.append(unique)
        counts.append(level_counts.astype(np.float64))
        sizes.append(len(unique))
        ranks = np.full(len(x), -1, dtype=np.int64)
        ranks[valid] = inverse
        prefix = np.concatenate([[-1], ranks[:-1]])  # the n-gram ending at t-1, prefix of level n + 1
    # How often a context is followed: the counts of its successors (prefix = key // V) summed.
    totals = [np.array([len(x)], dtype=np.float64)]  # the empty context precedes every token
    for n in range(1, order + 1):
        totals.append(np.bincount(keys[n] // vocab_size, weights=counts[n], minlength=sizes[n - 1]))
    offsets = level_offsets(sizes, vocab_size)
    keys = [offset + level_keys for offset, level_keys in zip(offsets, keys)]
    return np.concatenate(keys), np.concatenate(counts), np.concatenate(totals), sizes


@keras.saving.register_keras_serializable(package="seqlab")
class MarkovChain(keras.layers.Layer):
    r"""Markov chain of order k: the next token from the last k, by counting, smoothed and backed off.

    Equations:
        $$ p(x_1, \dots, x_N) = p(x_1)\, p(x_2 | x_1) \cdots \prod_{n=k+1}^N p(x_n | x_{n-1}, \dots, x_{n-k}) $$

        $$ p(x_n = v | c) = \frac{\mathrm{count}(c, v) + \alpha}{\mathrm{count}(c) + \alpha V} $$

        $$ \text{backoff: } p(x_n | x_{n-1}, \dots, x_{n-j}) \text{ with the largest }
           j \le k \text{ whose context } c \text{ has } \mathrm{count}(c) > 0 $$

        The notes' first-order ($k=1$) and second-order ($k=2$) models are
        the cases of one order $k$ from 1 to 5; the first tokens of a
        sequence use the orders their shorter context allows, as in
        $p(x_2 | x_1)$. $\mathrm{count}(c, v)$ is how often token $v$
        follows context $c$ in the corpus and $\mathrm{count}(c)$ how often
        $c$ is followed at all; $\alpha \ge 0$ is add-$\alpha$ (Laplace for
        $\alpha = 1$) smoothing. With `backoff`, an unseen context uses the
        longest seen suffix of it, down to the unigram model ($j = 0$);
        without it, an unseen context gives the uniform $1/V$. Each
        distribution sums to 1.

        `fit` counts in closed form (NumPy, about a second for a million
        tokens). The counts are stored sparsely: one int64 key and one count
        per distinct n-gram of length 1 to k+1, sorted, plus how often each
        context is followed (see `count_grams`), as non-trainable weights
        `keys`, `counts` and `totals`; memory grows with the corpus, not with
        $V^k$. `call` looks them up with `keras.ops.searchsorted` and
        `take`, so it runs in graph mode and exports in a SavedModel.

    Args:
        order: $k$, the number of previous tokens read, an integer in 1..5.
        vocab_size: $V$, the number of token ids (ids lie in [0, V)).
        alpha: Add-$\alpha$ smoothing, >= 0. Default 1. With 0 the
            estimate is the maximum-likelihood one (unseen continuations get
            probability 0 and a log-probability of -inf); it needs `backoff`.
        backoff: Back off to shorter contexts when the context was never
            seen. Default `True`.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: Integer token ids, `(batch, time)`, in [0, V). Ids outside
            that range are not checked in the graph: check them first (`fit`,
            `log_prob` and `log_likelihood` do).

    Returns:
        `(batch, time, V)`: at position t, $\log p(x_{t+1} = v \mid x_{\le t})$
        for every token v. Call `fit` first.

    Example:

    ```python
    chain = MarkovChain(order=2, vocab_size=3).fit([0, 1, 2, 0, 1, 2, 0, 1])
    chain(np.array([[0, 1]]))  # (1, 2, 3): log p(x_2 | x_1 = 0) and log p(x_3 | 0, 1)
    chain.perplexity([0, 1, 2, 0])  # about 1.84 on text it has seen
    from seqlab import decoding
    [out] = decoding.sample(chain.next_fn(), [[0, 1]], max_new_tokens=5, seed=0)
    ```
    """

    def __init__(self, order, vocab_size, alpha=1.0, backoff=True, **kwargs):
        super().__init__(**kwargs)
        self.order = check_integer("order", order, 1, MAX_ORDER)
        self.vocab_size = check_integer("vocab_size", vocab_size, 1)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 <= alpha < float("inf"):
            raise ValueError(f"Argument `alpha` must be a finite number >= 0. Received: alpha={alpha!r}")
        self.alpha = float(alpha)
        self.backoff = bool(backoff)
        if self.alpha == 0 and not self.backoff:
            raise ValueError(
                "alpha=0 without backoff leaves an unseen context with no distribution (0/0); "
                "set alpha > 0 or backoff=True."
            )
        self.sizes = None  # distinct n-grams per length 1..k+1, known once fitted

    def build(self, input_shape=None):
        if self.sizes is None:
            raise ValueError(
                "This MarkovChain has not been fitted: call `fit(token_ids)` before using it "
                "(its tables come from counting the corpus)."
            )

    def _create_tables(self, sizes):
        """Creates the weights for n-gram counts of these sizes (from `fit`, or on loading)."""
        self.sizes = [int(s) for s in sizes]
        V, k = self.vocab_size, self.order
        self.offsets = level_offsets(self.sizes, V)
        self.gram_starts = np.cumsum([0, *self.sizes]).tolist()  # index of the first key of each length
        self.context_starts = [0, *np.cumsum([1, *self.sizes[:k]]).tolist()]  # index of level j's totals
        self.keys = self.add_weight(shape=(sum(self.sizes),), dtype="int64", name="keys", initializer="zeros",
                                    trainable=False)
        self.counts = self.add_weight(shape=(sum(self.sizes),), name="counts", initializer="zeros", trainable=False)
        self.totals = self.add_weight(shape=(1 + sum(self.sizes[:k]),), name="totals", initializer="zeros",
                                      trainable=False)
        self.built = True

    def fit(self, token_ids):
        """Counts the n-grams of `token_ids` (one sequence, rows, or a list of sequences); returns self.

        n-grams never span two sequences. A layer is fitted once (its table
        sizes are fixed then): fit a new `MarkovChain` for another corpus.
        """
        if self.sizes is not None:
            raise ValueError("This MarkovChain is already fitted; create a new MarkovChain to fit another corpus.")
        sequences = token_sequences(token_ids, self.vocab_size)
        keys, counts, totals, sizes = count_grams(sequences, self.order, self.vocab_size)
        self._create_tables(sizes)
        self.keys.assign(keys)
        self.counts.assign(counts)
        self.totals.assign(totals)
        return self

    def get_build_config(self):
        return {"sizes": None if self.sizes is None else list(self.sizes)}

    def build_from_config(self, config):
        if config and config.get("sizes") is not None:
            self._create_tables(config["sizes"])

    def _lookup(self, keys):
        """For int64 keys of any shape: whether each is a stored n-gram, and its index in `keys`."""
        shape = ops.shape(keys)
        flat = ops.reshape(keys, (-1,))
        index = ops.minimum(ops.cast(ops.searchsorted(self.keys, flat), "int64"), sum(self.sizes) - 1)
        found = ops.equal(ops.take(self.keys, index), flat)
        return ops.reshape(found, shape), ops.reshape(index, shape)

    def _contexts(self, ids):
        """The context each position predicts from: `(level, rank, total)`, each `(batch, time)`.

        Position t has seen $x_0..x_t$; its context is the last j of them,
        with the largest usable j <= min(k, t + 1), rank its rank among the
        j-grams (0 for j = 0) and total how often it is followed.
        """
        V = self.vocab_size
        level = ops.zeros_like(ids)
        rank = ops.zeros_like(ids)
        total = ops.zeros(ops.shape(ids), dtype=self.compute_dtype) + ops.cast(self.totals[0], self.compute_dtype)
        gram = ops.zeros_like(ids)  # rank of the gram of length j - 1 ending at each t (level 0: empty)
        for j in range(1, self.order + 1):
            # The j-gram ending at t extends the (j-1)-gram ending at t-1 (for j = 1, the empty context).
            prefix = gram if j == 1 else ops.pad(gram[:, :-1], ((0, 0), (1, 0)), constant_values=-1)
            found, index = self._lookup(self.offsets[j - 1] + ops.maximum(prefix, 0) * V + ids)
            found = ops.logical_and(found, prefix >= 0)
            gram = ops.where(found, index - self.gram_starts[j - 1], -1)
            seen = ops.take(self.totals, self.context_starts[j] + ops.maximum(gram, 0))
            seen = ops.where(found, ops.cast(seen, self.compute_dtype), 0.0)
            if self.backoff:
                use = seen > 0
            else:  # the order-j context exists once t + 1 >= j tokens are in; unseen ones count 0
                use = ops.greater_equal(ops.arange(ops.shape(ids)[1], dtype="int64"), j - 1)[None, :]
                use = ops.broadcast_to(use, ops.shape(ids))
            level = ops.where(use, j, level)
            rank = ops.where(use, gram, rank)  # -1: an unseen context (without backoff), which counted nothing
            total = ops.where(use, seen, total)
        return level, rank, total

    def _log_prob_of(self, level, rank, total, tokens):
        """$\\log p(\\text{tokens} \\mid \\text{context})$, the context given as from `_contexts`."""
        offsets = ops.convert_to_tensor(self.offsets, dtype="int64")
        found, index = self._lookup(ops.take(offsets, level) + ops.maximum(rank, 0) * self.vocab_size + tokens)
        found = ops.logical_and(found, rank >= 0)
        count = ops.where(found, ops.cast(ops.take(self.counts, index), self.compute_dtype), 0.0)
        return ops.log(count + self.alpha) - ops.log(total + self.alpha * self.vocab_size)

    def call(self, inputs):
        ids = ops.cast(inputs, "int64")
        level, rank, total = (ops.expand_dims(part, -1) for part in self._contexts(ids))
        every_token = ops.arange(self.vocab_size, dtype="int64")  # broadcast to (batch, time, V)
        return self._log_prob_of(level, rank, total, every_token)

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.vocab_size)

    def token_log_probs(self, ids):
        """$\\log p(x_t \\mid x_{<t})$ for every position of `ids` `(batch, time)`: `(batch, time)`.

        The first token of each row is scored by the unigram model $p(x_1)$.
        """
        self.build()
        ids = ops.cast(ids, "int64")
        level, rank, total = self._contexts(ids)
        start = ops.zeros_like(ids[:, :1])
        empty = (start, start, ops.zeros_like(total[:, :1]) + ops.cast(self.totals[0], self.compute_dtype))

        def shift(part, first):  # the token at t is predicted from the context at t - 1, x_1 from the empty one
            return ops.concatenate([first, part[:, :-1]], axis=1)

        return self._log_prob_of(*map(shift, (level, rank, total), empty), ids)

    def log_prob(self, context):
        """Log-probabilities `(rows, V)` (NumPy) of the token after each row of `context` `(rows, n)` or `(n,)`."""
        context = np.asarray(context)
        rows = token_sequences(context[None] if context.ndim == 1 else context, self.vocab_size, "context")
        log_probs = self(np.stack(rows)[:, -self.order :])  # only the last k tokens matter
        return ops.convert_to_numpy(log_probs[:, -1, :])

    def next_fn(self):
        """The `next(tokens, state)` of `seqlab.decoding`: the state is the context, cut to the last k ids."""
        return decoding.context_next(self.log_prob, window=self.order)

    def log_likelihood(self, token_ids):
        """$\\sum \\log p(x_1, \\dots, x_N)$ in nats over every sequence of `token_ids`, and the token count."""
        self.build()
        total, tokens = 0.0, 0
        for sequence in token_sequences(token_ids, self.vocab_size):
            total += float(ops.sum(self.token_log_probs(sequence[None])))
            tokens += len(sequence)
        return total, tokens

    def perplexity(self, token_ids):
        """$\\exp(-\\frac{1}{N} \\log p(x_1, \\dots, x_N))$ over all tokens of `token_ids`."""
        total, tokens = self.log_likelihood(token_ids)
        return float(np.exp(-total / tokens))

    def get_config(self):
        config = {"order": self.order, "vocab_size": self.vocab_size, "alpha": self.alpha, "backoff": self.backoff}
        return {**super().get_config(), **config}
