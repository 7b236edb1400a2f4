"""Does longer BERT pre-training pay? Pre-train with Keras's JAX backend (on a GPU), fine-tune from checkpoints.

    KERAS_BACKEND=jax python -m bench.bert_jax [--checkpoints 10,50,200] [--seeds 3] [--vocab-size 5000]
        [--pooling cls,mean] [--width 64] [--layers 2] [--no-scratch] [--schedule cosine --warmup-steps 500]
        [--label-fraction 0.3] [--transfer all,embeddings]

``bench.bert_sentiment`` runs the same comparison through ``run_experiment``
on a CPU, where 6 epochs of pre-training take 18 minutes. Here the same
network and data train without TensorFlow: the masked-LM + next-sentence
pre-training on ``movie_reviews_mlm`` (paired and masked anew at every batch by
``MaskedLMModel``'s step), paused at each checkpoint epoch to report the
held-out masked-LM accuracy and to fine-tune a ``movie_sentiment`` classifier
from the encoder as it stands; the same classifier from random weights is
the reference. ``--pooling`` picks how the classifier reads the sentence
(BERT's pooler on z_[CLS], the mean of the tokens' vectors, or both). Each
fine-tuning (and each from-scratch run) is repeated over ``--seeds`` seeds,
with early stopping on the validation loss (patience 2, best weights kept);
the table gives the mean and spread of test accuracy. ``--label-fraction``
fine-tunes (and trains from scratch) on that share of the training sentences,
the case where pre-training usually pays first. ``--transfer``: ``all`` is
BERT's fine-tuning; ``embeddings`` takes only the pre-trained embeddings, the
encoder blocks (and the pooler) starting from random weights, as word vectors
start a network. Print as it goes,
unbuffered (``python -u``), where a time limit may cut it short.
(TF-IDF + logistic regression, the classical peer, needs scikit-learn:
``python -m bench.movie_sentiment`` measures it, 0.807.)
"""

from __future__ import annotations

import time

LAUNCHED = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402

if os.environ.get("KERAS_BACKEND") != "jax":
    raise SystemExit("Run with KERAS_BACKEND=jax: this bench trains without TensorFlow.")

import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from seqlab.data import load_dataset  # noqa: E402
from seqlab.models import bert, build_model  # noqa: E402
from seqlab.tasks.masked_lm import pretraining_scores, top_predictions  # noqa: E402
from seqlab.training import ExperimentSpec  # noqa: E402
from seqlab.training.optimizer import compile_model  # noqa: E402


def fine_tune(data, sizes: dict, encoder, tokenizer, args, seed: int, pooling: str = "cls",
              transfer: str = "all") -> float:
    """Test accuracy of a BERT classifier on ``data``: from ``encoder``'s weights, or from scratch (None)."""
    keras.utils.set_random_seed(seed)
    # The classifier copies the encoder's layers from a pre-training run; here that model is in this process.
    bert.pretrained_run = lambda run_id: (encoder, tokenizer)
    options = {**sizes, "pooling": pooling, "pretrained": "this process" if encoder else ""}
    spec = ExperimentSpec(data.name, "bert", {}, options, epochs=args.epochs, batch_size=64,
                          learning_rate=args.fine_tune_lr, seed=seed).resolved()
    model = build_model("bert", data, spec.model_options)
    if encoder and transfer == "embeddings":
        keras.utils.set_random_seed(seed)  # the blocks and pooler the same network from scratch starts with
        scratch = build_model("bert", data, {**spec.model_options, "pretrained": ""})
        for layer in model.layers:
            if layer.name.startswith("encoder_") or layer.name == "pooler":
                layer.set_weights(scratch.get_layer(layer.name).get_weights())
    model = compile_model(model, spec, data)
    train, val, test = (data.splits[s] for s in ("train", "val", "test"))
    x, y = np.asarray(train.x), np.asarray(train.y)
    if args.label_fraction < 1:
        kept = np.random.default_rng(100 + seed).permutation(len(x))[: int(args.label_fraction * len(x))]
        x, y = x[kept], y[kept]
    model.fit(x, y, validation_data=(val.x, val.y), epochs=args.epochs, batch_size=64, verbose=0,
              callbacks=[keras.callbacks.EarlyStopping(patience=2, restore_best_weights=True)])
    predicted = np.argmax(np.asarray(model.predict(test.x, batch_size=256, verbose=0)), axis=-1)
    return float(np.mean(predicted == np.asarray(test.y).reshape(-1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", default="10,50,200",
                        help="pre-training epochs at which to fine-tune (none: only the classifiers from scratch)")
    parser.add_argument("--seeds", type=int, default=3, help="fine-tuning runs per checkpoint (and from scratch)")
    parser.add_argument("--epochs", type=int, default=10, help="fine-tuning epochs at most")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--vocab-size", type=int, default=0,
                        help="pre-training vocabulary (0: the dataset's, 10,000 words)")
    parser.add_argument("--batch", type=int, default=64, help="pre-training batch")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="pre-training")
    parser.add_argument("--schedule", default="constant",
                        help="pre-training: constant, or cosine (warm-up, then decay to the last checkpoint)")
    parser.add_argument("--warmup-steps", type=int, default=0, help="pre-training batches of warm-up (cosine)")
    parser.add_argument("--fine-tune-lr", type=float, default=3e-4)
    parser.add_argument("--pooling", default="cls", help="the classifier's: cls, mean, or both (cls,mean)")
    parser.add_argument("--label-fraction", type=float, default=1.0,
                        help="the share of movie_sentiment's training sentences the classifiers learn from")
    parser.add_argument("--transfer", default="all",
                        help="what a fine-tuned classifier takes from the pre-training: all, embeddings (its blocks "
                             "random), or both (all,embeddings)")
    parser.add_argument("--no-scratch", action="store_true",
                        help="skip the classifiers from scratch (they do not depend on the pre-training)")
    args = parser.parse_args()
    checkpoints = sorted(int(c) for c in args.checkpoints.split(",") if c.strip() not in ("", "none"))
    sizes = {"layers": args.layers, "heads": args.heads, "width": args.width, "ff_units": 4 * args.width}

    corpus = load_dataset("movie_reviews_mlm", **({"vocab_size": args.vocab_size} if args.vocab_size else {}))
    sentiment = load_dataset("movie_sentiment")
    spec = ExperimentSpec("movie_reviews_mlm", "bert", {}, sizes, epochs=max(checkpoints, default=1),
                          batch_size=args.batch, learning_rate=args.learning_rate, schedule=args.schedule,
                          warmup_steps=args.warmup_steps).resolved()
    keras.utils.set_random_seed(spec.seed)
    model = compile_model(build_model("bert", corpus, sizes), spec, corpus)
    train, val, test = (corpus.splits[s] for s in ("train", "val", "test"))
    print(f"{jax.devices()[0].device_kind} ({jax.default_backend()}), Keras {keras.__version__}, JAX {jax.__version__}; "
          f"bert {sizes}, {model.count_params():,} weights; {len(train.y):,} training pairs of {corpus.lookback} "
          f"tokens, batch {args.batch}, {args.schedule} learning rate {args.learning_rate:g}; the classifiers learn "
          f"from {args.label_fraction:.0%} of movie_sentiment's training sentences", flush=True)

    def accuracies(encoder) -> dict[str, list[float]]:
        """Test accuracy per pooling (and transfer, when fine-tuned), one per seed."""
        transfers = args.transfer.split(",") if encoder else ["all"]
        return {pooling + (f", {transfer} transferred" if encoder else ""):
                [fine_tune(sentiment, sizes, encoder, corpus.tokenizer, args, seed, pooling, transfer)
                 for seed in range(args.seeds)] for pooling in args.pooling.split(",") for transfer in transfers}

    rows = [] if args.no_scratch else [("from scratch", None, accuracies(None))]
    if rows:
        print(f"from scratch: {rows[-1][2]}", flush=True)
    done = 0
    for epochs in checkpoints:
        started = time.perf_counter()
        model.fit(train.x, train.y, validation_data=(val.x, val.y), initial_epoch=done, epochs=epochs,
                  batch_size=args.batch, verbose=0)
        seconds, done = time.perf_counter() - started, epochs
        top = top_predictions(model, test.x)
        scores = pretraining_scores(np.asarray(test.y), top["ids"], top["is_next"])
        print(f"pre-trained {epochs} epochs ({seconds:.0f} s more): masked-LM accuracy "
              f"{100 * scores['mlm_accuracy']:.1f} %, top-5 {100 * scores['mlm_top5_accuracy']:.1f} %, "
              f"next sentence {100 * scores['nsp_accuracy']:.1f} %", flush=True)
        rows.append((f"fine-tuned after {epochs} pre-training epochs", scores, accuracies(model)))
        print(f"  fine-tuned: {rows[-1][2]}", flush=True)

    print(f"\n{time.perf_counter() - LAUNCHED:.0f} s from launch\n")
    print("| classifier | pooling | masked-LM accuracy | test accuracy, mean over seeds | min - max |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, scores, by_pooling in rows:
        mlm = f"{100 * scores['mlm_accuracy']:.1f} %" if scores else "-"
        for pooling, values in by_pooling.items():
            print(f"| {name} | {pooling} | {mlm} | {np.mean(values):.3f} | {min(values):.3f} - {max(values):.3f} |")


if __name__ == "__main__":
    main()
