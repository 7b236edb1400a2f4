"""Does BERT's pre-training show its worth? A tiny BERT fine-tuned on movie_sentiment against the same network
from scratch and TF-IDF + logistic regression.

    python -m bench.bert_sentiment [--pretrain-epochs 6] [--epochs 8] [--width 64] [--layers 2] [--pretrained RUN]

1. Pre-training (``movie_reviews_mlm``: the movie-review sentences without movie_sentiment's test sentences,
   masked LM + next-sentence prediction, paired and masked anew at every batch) by ``run_experiment``; or
   ``--pretrained`` reuses a finished run.
2. Fine-tuning on ``movie_sentiment`` (its fixed split, word tokens, 64 tokens at most) from that run's
   encoder, and the same network (same sizes and options) from random weights, each with early stopping on the
   validation loss (patience 2, best weights kept), both at the same learning rate.
3. The classical peer of ``bench.movie_sentiment``: TF-IDF of word 1-2-grams and character 2-5-grams with a
   logistic regression, on the same training sentences.

Prints the pre-training's test scores, its guesses for a few blanks, the cosine similarity of one word's
last-layer vectors in two sentences (contextual embeddings), and a table of test accuracy, macro F1 and seconds (train + export).
Runs are written under ``--runs`` (also the store where ``pretrained`` looks them up).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pretrain-epochs", type=int, default=6)
    parser.add_argument("--epochs", type=int, default=8, help="fine-tuning and from-scratch epochs (at most)")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--pretrained", default="", help="a finished masked_lm run id (skips pre-training)")
    parser.add_argument("--runs", default="/tmp/bench_bert_sentiment_runs")
    args = parser.parse_args()
    os.environ["SEQLAB_RUNS_DIR"] = args.runs  # where the bert model's ``pretrained`` option finds the run

    from bench.movie_sentiment import tfidf_peer
    from seqlab.data import load_dataset
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(args.runs)
    sizes = {"layers": args.layers, "heads": args.heads, "width": args.width, "ff_units": 4 * args.width}

    def show(event):
        if event["type"] == "epoch":
            losses = ", ".join(f"{k} {v:.3f}" for k, v in event.items() if k.endswith("loss") or k.endswith("accuracy"))
            print(f"    epoch {event['epoch']}: {losses} ({event['elapsed']:.0f} s)", flush=True)

    def train(dataset: str, options: dict, epochs: int, patience: int):
        spec = ExperimentSpec(dataset, "bert", {}, options, epochs=epochs, batch_size=64,
                              learning_rate=args.learning_rate, early_stopping=patience)
        started = time.perf_counter()
        run = run_experiment(spec, on_event=show, store=store)
        return run, time.perf_counter() - started

    pretrained = args.pretrained
    if not pretrained:
        print(f"pre-training bert {sizes} on movie_reviews_mlm, {args.pretrain_epochs} epochs", flush=True)
        run, seconds = train("movie_reviews_mlm", sizes, args.pretrain_epochs, 0)
        pretrained = run.run_id
        print(f"  {pretrained}: {run.metrics} in {seconds:.0f} s", flush=True)
    else:
        print(f"pre-trained run {pretrained}: {store.read(pretrained).metrics}", flush=True)

    show_encoder(store.read(pretrained))

    data = load_dataset("movie_sentiment")
    rows = [("TF-IDF + logistic regression (scikit-learn)", *tfidf_peer(data), None)]
    print(f"  peer: accuracy {rows[0][1]:.3f}", flush=True)
    for name, source in (("bert fine-tuned from pre-training", pretrained), ("bert from scratch", "")):
        print(f"{name}", flush=True)
        run, seconds = train("movie_sentiment", {**sizes, "pretrained": source}, args.epochs, 2)
        scores = run.metrics["model"]
        rows.append((f"{name} ({run.run_id})", scores["accuracy"], seconds, scores.get("macro_f1")))
        print(f"  accuracy {scores['accuracy']:.3f} in {seconds:.0f} s", flush=True)

    print("\n| model | test accuracy | macro F1 | seconds (train + export) |")
    print("| --- | ---: | ---: | ---: |")
    for name, accuracy, seconds, f1 in sorted(rows, key=lambda r: -r[1]):
        print(f"| {name} | {accuracy:.3f} | {'–' if f1 is None else f'{f1:.3f}'} | {seconds:.0f} |")


CONTEXTS = ("the film is dull and slow .", "a film about love and loss .", "the plot is dull and slow .")
BLANKS = ("the film is [MASK] .", "one of the [MASK] films of the year .", "the acting is [MASK] but the story is thin .")


def show_encoder(run) -> None:
    """What the pre-trained encoder learned: fill-in guesses, and one word's contextual vectors compared."""
    from seqlab.tasks.masked_lm.contextual import contextual_vectors, cosine_similarities
    from seqlab.tasks.masked_lm.fill_in import fill_in

    for text in BLANKS:
        blank = fill_in(run, text, top_k=5).blanks[0]
        print(f"  {text}: " + ", ".join(f"{t} {p:.2f}" for t, p in zip(blank.tokens, blank.probabilities)))
    for word, sentences in (("film", CONTEXTS[:2]), ("dull", (CONTEXTS[0], CONTEXTS[2]))):
        similarity = cosine_similarities(contextual_vectors(run.load_model(), run.load_tokenizer(), word, sentences))
        print(f"  cos({word!r} in {sentences[0]!r}, in {sentences[1]!r}) = {similarity[0, 1]:.3f}")


if __name__ == "__main__":
    main()
