"""HMM Baum-Welch (EM) on characters of Python's help topics: seqlab vs hmmlearn, same data and start.

The data: the first `--chars` characters of `pydoc_data.topics` (always
present), character tokens (seqlab.text.CharTokenizer), cut into sequences of
`--length` characters. Both models start from the same pi, A and B (seqlab's
`HMM(seed=0)` draw, copied into hmmlearn's `CategoricalHMM` with
`init_params=""`) and run exactly `--iterations` EM iterations (no early stop).
Printed: the log-likelihood before the first and the last M-step (what both
record per iteration), the largest relative gap between the two histories,
the final log-likelihood and the wall-clock time of training.

Run (from the repository root):
      python -m bench.hmm_baum_welch
      python -m bench.hmm_baum_welch --states 16 --chars 100000 --iterations 30
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from pydoc_data.topics import topics  # noqa: E402

from seqlab.layers.markov.hmm import HMM, padded  # noqa: E402
from seqlab.text import CharTokenizer  # noqa: E402


def corpus(chars, length):
    """Character ids of the help topics, as sequences of `length` ids, and the vocabulary size."""
    text = "\n".join(topics[name] for name in sorted(topics))[:chars]
    tokenizer = CharTokenizer().fit([text])
    ids = np.array(tokenizer.encode(text), dtype=np.int64)
    return [ids[i : i + length] for i in range(0, len(ids), length)], tokenizer.vocab_size


def corpus_and_start(states, chars, length):
    """The sequences and seqlab's HMM drawn with seed 0, built: its pi, A and B are both models' start."""
    sequences, vocab_size = corpus(chars, length)
    hmm = HMM(states, vocab_size, seed=0)
    hmm.build()
    return sequences, hmm


def seqlab_fit(hmm, sequences, iterations):
    start = time.perf_counter()
    history = hmm.baum_welch(sequences, iterations=iterations, tol=None)
    seconds = time.perf_counter() - start
    ids, mask = padded(sequences)
    return history, float(np.sum(hmm(ids, mask=mask))), seconds


def hmmlearn_fit(pi, A, B, sequences, iterations):
    from hmmlearn.hmm import CategoricalHMM

    model = CategoricalHMM(
        n_components=len(pi), n_features=B.shape[1], n_iter=iterations, tol=-np.inf, init_params="", params="ste"
    )
    model.startprob_, model.transmat_, model.emissionprob_ = pi, A, B
    X, lengths = np.concatenate(sequences)[:, None], [len(s) for s in sequences]
    start = time.perf_counter()
    model.fit(X, lengths)
    seconds = time.perf_counter() - start
    return np.array(model.monitor_.history), model.score(X, lengths), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=8)
    parser.add_argument("--chars", type=int, default=50_000)
    parser.add_argument("--length", type=int, default=500)
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args()

    sequences, hmm = corpus_and_start(args.states, args.chars, args.length)
    pi, A, B = hmm.pi, hmm.A, hmm.B  # the common start
    vocab_size = B.shape[1]
    print(f"pydoc topics: {sum(map(len, sequences))} characters in {len(sequences)} sequences of <= {args.length}, "
          f"V={vocab_size}, K={args.states}, {args.iterations} EM iterations\n")
    print(f"{'model':<22} {'LL first':>14} {'LL last':>14} {'LL final':>14} {'train s':>8}")
    ours, our_final, our_seconds = seqlab_fit(hmm, sequences, args.iterations)
    print(f"{'seqlab HMM (float64)':<22} {ours[0]:>14.6f} {ours[-1]:>14.6f} {our_final:>14.6f} {our_seconds:>8.2f}")
    try:
        theirs, their_final, their_seconds = hmmlearn_fit(pi, A, B, sequences, args.iterations)
    except ImportError:
        print("hmmlearn not installed: peer skipped")
        return
    print(f"{'hmmlearn 0.3.3':<22} {theirs[0]:>14.6f} {theirs[-1]:>14.6f} {their_final:>14.6f} {their_seconds:>8.2f}")
    gap = np.max(np.abs(ours - theirs) / np.abs(theirs))
    print(f"\nlargest relative gap between the per-iteration log-likelihoods: {gap:.1e} (target <= 1e-6: "
          f"{'ok' if gap <= 1e-6 else 'MISSED'}); final: {abs(our_final - their_final) / abs(their_final):.1e}")
    print(f"log-likelihood never decreased: seqlab {bool(np.all(np.diff(ours) >= -1e-9))}, "
          f"hmmlearn {bool(np.all(np.diff(theirs) >= -1e-9))}")


if __name__ == "__main__":
    main()
