r"""Hidden Markov model over token ids: forward-backward in log space, Viterbi, Baum-Welch (EM)."""

import numbers

import keras
import numpy as np
from keras import ops

from seqlab.layers.markov.markov_chain import check_integer, token_sequences


def padded(sequences):
    """Sequences of different lengths as `(ids, mask)`, both `(batch, longest)`; padding is id 0, mask 0."""
    longest = max(len(s) for s in sequences)
    ids = np.zeros((len(sequences), longest), dtype=np.int64)
    mask = np.zeros((len(sequences), longest), dtype=bool)
    for row, sequence in enumerate(sequences):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = True
    return ids, mask


def normalised_rows(counts, previous, name):
    """`counts` divided by their row sums; a row that counted nothing keeps its `previous` probabilities."""
    if not np.all(np.isfinite(counts)):
        raise ValueError(f"Baum-Welch's expected counts for the {name} are not finite; the E-step diverged.")
    sums = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = np.where(sums > 0, counts / sums, previous)
    return rows


def time_major(emissions, mask):
    """`(time, batch, K + 1)`: the emissions with the mask as a last column, what the scans step over.

    One tensor, not a pair: Keras's TensorFlow `scan` fails on several inputs of unknown length.
    """
    return ops.moveaxis(ops.concatenate([emissions, mask[..., None]], axis=-1), 1, 0)


class EStep(keras.Model):
    """`HMM.expectations` as a model, so that `predict_on_batch` runs it compiled (without `gamma`)."""

    def __init__(self, hmm, **kwargs):
        super().__init__(**kwargs)
        self.hmm = hmm

    def call(self, inputs):
        stats = self.hmm.expectations(*inputs)
        del stats["gamma"]  # only the sums go back to NumPy
        return stats


@keras.saving.register_keras_serializable(package="seqlab")
class HMM(keras.layers.Layer):
    r"""Hidden Markov model of token sequences; its output is the forward log-likelihood of each sequence.

    Equations:
        $$ p(x_1, \dots, x_N, z_1, \dots, z_N) = p(z_1) \prod_{n=2}^N p(z_n | z_{n-1}) \prod_{n=1}^N p(x_n | z_n) $$

        $$ \pi_k = p(z_1 = k), \quad A_{jk} = p(z_n = k | z_{n-1} = j), \quad B_{kv} = p(x_n = v | z_n = k) $$

        $$ \log \alpha_1(k) = \log \pi_k + \log B_{k x_1}, \quad
           \log \alpha_n(k) = \log B_{k x_n}
           + \operatorname{logsumexp}_j \left( \log \alpha_{n-1}(j) + \log A_{jk} \right) $$

        $$ \log \beta_N(j) = 0, \quad
           \log \beta_n(j) = \operatorname{logsumexp}_k
           \left( \log A_{jk} + \log B_{k x_{n+1}} + \log \beta_{n+1}(k) \right) $$

        $$ \log p(x_1, \dots, x_N) = \operatorname{logsumexp}_k \log \alpha_N(k), \quad
           \gamma_n(k) = p(z_n = k | x) = \frac{\alpha_n(k) \beta_n(k)}{p(x)} $$

        $$ \log \delta_1(k) = \log \pi_k + \log B_{k x_1}, \quad
           \log \delta_n(k) = \log B_{k x_n} + \max_j \left( \log \delta_{n-1}(j) + \log A_{jk} \right), \quad
           \psi_n(k) = \arg\max_j \left( \log \delta_{n-1}(j) + \log A_{jk} \right) $$

        $$ \hat z_N = \arg\max_k \log \delta_N(k), \quad \hat z_{n-1} = \psi_n(\hat z_n), \quad
           \log p(x, \hat z) = \max_k \log \delta_N(k) $$

        $$ \xi_n(j, k) = \frac{\alpha_{n-1}(j) A_{jk} B_{k x_n} \beta_n(k)}{p(x)}, \quad
           \pi \propto \sum \gamma_1, \quad A_{jk} \propto \sum_n \xi_n(j, k), \quad
           B_{kv} \propto \sum_{n: x_n = v} \gamma_n(k) $$

        $z_n \in \{0..K-1\}$ is the hidden state and $x_n \in \{0..V-1\}$
        the observed token, in the notes' joint $p(x, z)$. The forward and
        backward recursions run in log space (`keras.ops.logsumexp` inside
        `keras.ops.scan`), so long sequences do not underflow. `viterbi`
        replaces logsumexp by max for the most probable path. `baum_welch`
        is EM: the E-step is this forward-backward pass, the M-step the
        closed-form re-estimates above (in NumPy, like `ESNReadout.fit`); the
        log-likelihood never decreases. The weights `log_pi`, `log_A` and
        `log_B` are non-trainable and hold the log-probabilities.

    Args:
        states: $K$, the number of hidden states, a positive integer.
        vocab_size: $V$, the number of token ids (ids lie in [0, V)).
        seed: Seed of the initial parameters ($\pi$ uniform, rows of $A$
            and $B$ uniform random numbers normalised, as `hmmlearn` starts
            $B$); `None` draws one from NumPy's global generator.
        **kwargs: Base layer arguments. `dtype` defaults to `"float64"`:
            a log-likelihood is a sum over thousands of tokens, and EM's
            monotone increase needs the digits.

    Call arguments:
        inputs: Integer token ids, `(batch, time)`, in [0, V).
        mask: Optional boolean `(batch, time)`; `False` steps are skipped (as
            if deleted), so a padded sequence has its unpadded likelihood.

    Returns:
        `(batch,)`: $\log p(x_1, \dots, x_N)$ of each sequence, in nats.

    Example:

    ```python
    hmm = HMM(states=2, vocab_size=3, seed=0)
    history = hmm.baum_welch([[0, 0, 1, 2, 2, 1, 0], [2, 2, 1]], iterations=20)
    hmm(np.array([[0, 1, 2]]))  # (1,): log p(x)
    path, log_prob = hmm.viterbi(np.array([[0, 1, 2]]))  # (1, 3) states, (1,)
    gamma = hmm.posterior(np.array([[0, 1, 2]]))  # (1, 3, 2), rows sum to 1
    ```
    """

    def __init__(self, states, vocab_size, seed=None, **kwargs):
        kwargs.setdefault("dtype", "float64")
        super().__init__(**kwargs)
        self.states = check_integer("states", states, 1)
        self.vocab_size = check_integer("vocab_size", vocab_size, 1)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ValueError(f"Argument `seed` must be an integer or None. Received: seed={seed!r}")
        self.seed = None if seed is None else int(seed)

    def build(self, input_shape=None):
        K, V = self.states, self.vocab_size
        rng = np.random.default_rng(self.seed if self.seed is not None else np.random.randint(2**31 - 1))
        A, B = rng.random((K, K)), rng.random((K, V))
        values = {
            "log_pi": np.full(K, -np.log(K)),
            "log_A": np.log(A / A.sum(axis=1, keepdims=True)),
            "log_B": np.log(B / B.sum(axis=1, keepdims=True)),
        }
        for name, value in values.items():
            # An initializer, not an assign: build may run inside a traced function.
            weight = self.add_weight(
                shape=value.shape, name=name, initializer=keras.initializers.Constant(value), trainable=False
            )
            setattr(self, name, weight)

    @property
    def pi(self):
        """$\\pi$, the initial state probabilities `(K,)` (NumPy)."""
        return np.exp(ops.convert_to_numpy(self.log_pi))

    @property
    def A(self):
        """$A$, the transition probabilities `(K, K)`, rows $j$ = from (NumPy)."""
        return np.exp(ops.convert_to_numpy(self.log_A))

    @property
    def B(self):
        """$B$, the emission probabilities `(K, V)` (NumPy)."""
        return np.exp(ops.convert_to_numpy(self.log_B))

    def set_parameters(self, pi, A, B):
        """Sets $\\pi$ `(K,)`, $A$ `(K, K)` and $B$ `(K, V)` (probabilities, rows summing to 1); returns self."""
        if not self.built:
            self.build()
        K, V = self.states, self.vocab_size
        for name, value, shape in (("pi", pi, (K,)), ("A", A, (K, K)), ("B", B, (K, V))):
            value = np.asarray(value, dtype=np.float64)
            if value.shape != shape:
                raise ValueError(f"`{name}` must have shape {shape} for K={K}, V={V}; got {value.shape}.")
            if np.any(value < 0) or not np.allclose(value.sum(axis=-1), 1.0, atol=1e-6):
                raise ValueError(f"`{name}` must hold probabilities >= 0 whose rows sum to 1.")
            with np.errstate(divide="ignore"):
                getattr(self, f"log_{name}").assign(np.log(value))
        return self

    def _inputs(self, ids, mask):
        """Emission log-probabilities $\\log B_{k x_n}$ `(batch, time, K)` and the mask as 0/1 `(batch, time)`."""
        ids = ops.cast(ids, "int32")
        emissions = ops.take(ops.transpose(self.log_B), ids, axis=0)
        if mask is None:
            return emissions, ops.ones(ops.shape(ids), dtype=self.compute_dtype)
        mask = ops.cast(mask, self.compute_dtype)
        # A padding id may have emission probability 0 (log -inf, then NaN in -inf - -inf): use 0 there.
        return ops.where(mask[..., None] > 0, emissions, 0.0), mask

    def _forward(self, emissions, mask, initial=None):
        """The forward recursion; masked steps are skipped.

        Returns `(alpha, alpha_before, seen_before, log_likelihood, prediction)`:
        $\\log \\alpha_n$ `(batch, time, K)`; $\\log \\alpha$ of the previous
        unmasked step and whether there was one, as each step found them;
        $\\log p(x)$ `(batch,)`; and $\\log p(z_{N+1}, x_1..x_N)$ `(batch, K)`.
        `initial` replaces $\\log \\pi$ as $\\log p(z_1)$ (for `next_fn`).
        """
        log_A = self.log_A
        batch = ops.shape(emissions)[0]
        prior = ops.broadcast_to(self.log_pi if initial is None else initial, (batch, self.states))

        def step(carry, inputs):
            prediction, alpha, seen = carry  # log p(z_n, x_<n), log alpha of the last real step, 0/1
            e, m = inputs[:, :-1], inputs[:, -1]
            new_alpha = prediction + e
            new_prediction = ops.logsumexp(new_alpha[:, :, None] + log_A[None], axis=1)
            keep = m[:, None] > 0
            carry = (
                ops.where(keep, new_prediction, prediction), ops.where(keep, new_alpha, alpha), ops.maximum(seen, m)
            )
            return carry, (alpha, new_alpha, seen)  # TensorFlow's scan needs outputs shaped like the carry

        init = (prior, prior, ops.zeros((batch,), dtype=self.compute_dtype))  # no step: p(x) = sum(pi) = 1
        xs = time_major(emissions, mask)
        (prediction, alpha_last, _), (alpha_before, alpha, seen_before) = ops.scan(step, init, xs)
        alpha, alpha_before = ops.moveaxis(alpha, 0, 1), ops.moveaxis(alpha_before, 0, 1)
        return alpha, alpha_before, ops.moveaxis(seen_before, 0, 1), ops.logsumexp(alpha_last, axis=-1), prediction

    def _backward(self, emissions, mask):
        """The backward recursion: $\\log \\beta_n$ `(batch, time, K)`; masked steps are skipped."""
        log_A = self.log_A
        batch = ops.shape(emissions)[0]

        def step(carry, inputs):
            message, later = carry  # log B x beta of the next real step, and whether there is one
            e, m = inputs[:, :-1], inputs[:, -1]
            beta = ops.logsumexp(log_A[None] + message[:, None, :], axis=2)
            beta = ops.where(later[:, None] > 0, beta, 0.0)  # the last real step: beta_N = 1
            keep = m[:, None] > 0
            return (ops.where(keep, e + beta, message), ops.maximum(later, m)), (beta, later)

        dtype = self.compute_dtype
        init = (ops.zeros((batch, self.states), dtype=dtype), ops.zeros((batch,), dtype=dtype))
        xs = time_major(emissions, mask)
        _, (beta, _) = ops.scan(step, init, xs, reverse=True)
        return ops.moveaxis(beta, 0, 1)

    def call(self, inputs, mask=None):
        emissions, mask = self._inputs(inputs, mask)
        return self._forward(emissions, mask)[3]

    def compute_output_shape(self, input_shape):
        return (input_shape[0],)

    def compute_mask(self, inputs, mask=None):
        return None  # one number per sequence: nothing left to mask

    def posterior(self, ids, mask=None):
        """$\\gamma_n(k) = p(z_n = k \\mid x)$ `(batch, time, K)`; rows sum to 1, masked steps are 0."""
        return self.expectations(ids, mask)["gamma"]

    def expectations(self, ids, mask=None):
        """The E-step: a dict of `log_likelihood` `(batch,)`, `gamma` `(batch, time, K)` and the sums
        over the batch `start` $\\sum \\gamma_1$ `(K,)`, `transitions` $\\sum_n \\xi_n$ `(K, K)` and
        `emissions` $\\sum_{n: x_n = v} \\gamma_n$ `(K, V)`."""
        if not self.built:
            self.build()
        e, m = self._inputs(ids, mask)
        alpha, alpha_before, seen_before, log_likelihood, _ = self._forward(e, m)
        beta = self._backward(e, m)
        gamma = ops.exp(alpha + beta - log_likelihood[:, None, None]) * m[..., None]
        # xi_n(j, k) is proportional to alpha_{n-1}(j) A_jk B_k(x_n) beta_n(k) and sums to 1 over (j, k):
        # scale each factor by its maximum and divide by the sum, exact and free of underflow.
        pair = m * seen_before  # steps with a real step before them
        before = ops.exp(alpha_before - ops.max(alpha_before, axis=-1, keepdims=True))
        after = e + beta
        after = ops.exp(after - ops.max(after, axis=-1, keepdims=True))
        A = ops.exp(self.log_A)
        norm = ops.einsum("btj,jk,btk->bt", before, A, after)
        weight = ops.where(pair > 0, pair / ops.where(pair > 0, norm, 1.0), 0.0)
        transitions = A * ops.einsum("btj,btk,bt->jk", before, after, weight)
        flat_ids = ops.reshape(ops.cast(ids, "int32"), (-1,))
        emitted = ops.segment_sum(ops.reshape(gamma, (-1, self.states)), flat_ids, num_segments=self.vocab_size)
        first = m * (1.0 - seen_before)  # the first real step of each sequence
        return {
            "log_likelihood": log_likelihood,
            "gamma": gamma,
            "start": ops.einsum("btk,bt->k", gamma, first),
            "transitions": transitions,
            "emissions": ops.transpose(emitted),
        }

    def viterbi(self, ids, mask=None):
        """The most probable state path $\\arg\\max_z p(x, z)$ `(batch, time)` (int32, -1 at masked steps)
        and its $\\log p(x, z)$ `(batch,)`."""
        if not self.built:
            self.build()
        e, m = self._inputs(ids, mask)
        log_A, batch, K = self.log_A, ops.shape(e)[0], self.states
        stay = ops.broadcast_to(ops.arange(K, dtype=self.compute_dtype), (batch, K))  # psi at a skipped step

        def step(carry, inputs):
            delta, _, seen = carry
            e_n, m_n = inputs[:, :-1], inputs[:, -1]
            scores = delta[:, :, None] + log_A[None]  # (batch, from j, to k)
            moved = ops.where(seen[:, None] > 0, ops.max(scores, axis=1), self.log_pi[None]) + e_n
            psi = ops.where(seen[:, None] > 0, ops.cast(ops.argmax(scores, axis=1), self.compute_dtype), stay)
            keep = m_n[:, None] > 0
            carry = (ops.where(keep, moved, delta), ops.where(keep, psi, stay), ops.maximum(seen, m_n))
            return carry, carry

        zeros = ops.zeros((batch, K), dtype=self.compute_dtype)
        init = (zeros, stay, ops.zeros((batch,), dtype=self.compute_dtype))
        xs = time_major(e, m)
        (delta, _, seen), (_, psi, _) = ops.scan(step, init, xs)  # psi: (time, batch, K) back-pointers
        last = ops.cast(ops.argmax(delta, axis=-1), self.compute_dtype)

        def back(z, psi_n):  # z_n, then z_{n-1} = psi_n(z_n)
            previous = ops.take_along_axis(psi_n, ops.cast(z, "int32")[:, None], axis=1)[:, 0]
            return previous, z

        _, path = ops.scan(back, last, psi, reverse=True)
        path = ops.where(ops.moveaxis(m, 1, 0) > 0, ops.cast(path, "int32"), -1)
        log_prob = ops.where(seen > 0, ops.max(delta, axis=-1), 0.0)
        return ops.moveaxis(path, 0, 1), log_prob

    def baum_welch(self, sequences, iterations=100, tol=1e-4):
        """EM training in closed form; returns the log-likelihood (nats, summed over `sequences`) per iteration.

        Each iteration is an E-step (`expectations` with the current
        parameters, whose log-likelihood is recorded) then an M-step; it
        stops after `iterations`, or once an iteration gains less than `tol`
        (`None`: never), as `hmmlearn` does, so its history is the same. The
        recorded values never decrease (up to rounding).

        Args:
            sequences: Token ids: one sequence, rows, or a list of sequences
                of different lengths.
            iterations: Maximum number of EM iterations, >= 1.
            tol: Stop when the log-likelihood gains less than this; `None`
                runs all `iterations`.

        Returns:
            A float64 NumPy array of log-likelihoods, one per iteration.
        """
        iterations = check_integer("iterations", iterations, 1)
        if tol is not None and (isinstance(tol, bool) or not isinstance(tol, numbers.Real)):
            raise ValueError(f"Argument `tol` must be a number or None. Received: tol={tol!r}")
        ids, mask = padded(token_sequences(sequences, self.vocab_size, "sequences"))
        if not self.built:
            self.build()
        e_step = EStep(self)  # predict_on_batch compiles the E-step once; it reads the current weights
        history = []
        for _ in range(iterations):
            stats = e_step.predict_on_batch((ids, mask))
            history.append(float(np.sum(stats["log_likelihood"])))
            self.set_parameters(
                stats["start"] / stats["start"].sum(),
                normalised_rows(stats["transitions"], self.A, "transition matrix A"),
                normalised_rows(stats["emissions"], self.B, "emission matrix B"),
            )
            if tol is not None and len(history) > 1 and history[-1] - history[-2] < tol:
                break
        return np.array(history)

    def next_fn(self):
        """The `next(tokens, state)` of `seqlab.decoding`: the state is $\\log p(z_{n+1} \\mid x_{\\le n})$
        `(rows, K)`, so each step reads only the new ids, never the prompt again."""

        def next_fn(tokens, state):
            if not self.built:
                self.build()
            log_probs, prediction = self.read_next(tokens, None if state is None else ops.convert_to_tensor(state))
            return ops.convert_to_numpy(log_probs), ops.convert_to_numpy(prediction)

        return next_fn

    def read_next(self, ids, prediction=None):
        """After ids `(rows, n)` from the prediction $\\log p(z \\mid \\text{before})$ `(rows, K)` (`None`:
        $\\log \\pi$): the next token's log-probabilities `(rows, V)` and the new prediction, in `keras.ops`."""
        e, m = self._inputs(ids, None)
        prediction = self._forward(e, m, initial=prediction)[4]
        prediction = prediction - ops.logsumexp(prediction, axis=-1, keepdims=True)
        return ops.logsumexp(prediction[:, :, None] + self.log_B[None], axis=1), prediction  # (rows, V)

    def get_config(self):
        config = {"states": self.states, "vocab_size": self.vocab_size, "seed": self.seed}
        return {**super().get_config(), **config}
