"""Sentiment of movie-review sentences: seqlab's text classifiers against TF-IDF + logistic regression.

    python -m bench.movie_sentiment [--models mean_embedding,cnn,gru,lstm] [--epochs 8]

On ``movie_sentiment``'s fixed split (10,568 sentences, 80 / 10 / 10,
stratified; word tokens, vocabulary 10,000, at most 64 tokens), each model is
trained by ``run_experiment`` with early stopping on the validation loss
(patience 2, the best weights kept) and scored on the test sentences; the
classical peer, scikit-learn's TF-IDF of word 1-2-grams and character
2-5-grams with a logistic regression, is fitted on the same training
sentences (raw text, its own tokenisation). Prints test accuracy, macro F1
where the run reports it, and the training seconds.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

MODEL_OPTIONS = {  # one budget for the recurrent ones; the CNN and the mean of embeddings at their defaults
    "gru": {"units": 64},
    "lstm": {"units": 64, "bidirectional": True},
    "simple_rnn": {"units": 64},
}


def tfidf_peer(data) -> tuple[float, float]:
    """Test accuracy of TF-IDF (word 1-2-grams + character 2-5-grams) and logistic regression; seconds."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    frame = data.frame
    train, test = (frame.iloc[data.splits[s].origin] for s in ("train", "test"))
    started = time.perf_counter()
    features = make_union(
        TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2),
        TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2),
    )
    model = make_pipeline(features, LogisticRegression(C=4.0, max_iter=2000))
    model.fit(train["text"], train["label"])
    accuracy = float(np.mean(model.predict(test["text"]) == test["label"].to_numpy()))
    return accuracy, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="mean_embedding,cnn,gru,lstm")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--runs", default="/tmp/bench_movie_sentiment_runs")
    args = parser.parse_args()

    data = load_dataset("movie_sentiment")
    sizes = {name: len(split) for name, split in data.splits.items()}
    print(f"movie_sentiment: {sizes}, classes {data.classes}, vocabulary {data.tokenizer.vocab_size:,}", flush=True)
    rows = [("TF-IDF + logistic regression (scikit-learn)", *tfidf_peer(data), None)]
    print(f"  peer: accuracy {rows[0][1]:.3f}", flush=True)
    for model in args.models.split(","):
        spec = ExperimentSpec("movie_sentiment", model, {}, MODEL_OPTIONS.get(model, {}), epochs=args.epochs,
                              batch_size=64, learning_rate=2e-3, early_stopping=2)
        started = time.perf_counter()
        run = run_experiment(spec, store=RunStore(args.runs))
        seconds = time.perf_counter() - started
        scores = run.metrics["model"]
        rows.append((f"seqlab {model}", scores["accuracy"], seconds, scores.get("macro_f1")))
        print(f"  {model}: accuracy {scores['accuracy']:.3f} in {seconds:.0f} s", flush=True)

    print("\n| model | test accuracy | macro F1 | seconds (train + export) |")
    print("| --- | ---: | ---: | ---: |")
    for name, accuracy, seconds, f1 in sorted(rows, key=lambda r: -r[1]):
        print(f"| {name} | {accuracy:.3f} | {'–' if f1 is None else f'{f1:.3f}'} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
