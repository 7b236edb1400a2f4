"""Translation with and without attention: numbers in English words to German, dates to ISO.

    python -m bench.translation [--tasks numbers,dates] [--attention bahdanau,none] [--epochs 12]
    python -m bench.translation --model transformer_seq2seq [--tasks numbers,dates] [--epochs 12]

Each recurrent encoder-decoder (GRU, 128 units, embeddings of 32, Adam at 0.003, batches of 64), or each
encoder-decoder Transformer (``--model transformer_seq2seq``: 2 encoder and 2 decoder blocks, width 64, 4 heads,
feed-forward 128, post-norm, Adam at 0.002; ``--attention`` not used) is trained by
``run_experiment`` for the same number of epochs on the dataset's fixed split, keeping the weights of
the best validation loss, and scored on the test pairs by greedy decoding: exact match, token accuracy,
BLEU and chrF (sacrebleu). ``numbers_en_de`` holds out 10 % of the numbers 0..9,999 (never seen in
training); ``dates`` 10 % of the dates, whichever way they are written. Prints one row per run with its
training seconds.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402

DATASETS = {"numbers": "numbers_en_de", "dates": "dates"}
# Each architecture's options, the values of --attention it is run with, and its learning rate.
MODELS = {
    "seq2seq": ({"cell": "gru", "units": 128, "embedding_dim": 32}, None, 0.003),
    "transformer_seq2seq": ({"layers": 2, "heads": 4, "width": 64, "ff_units": 128, "norm": "post"}, ["-"], 0.002),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="numbers,dates")
    parser.add_argument("--model", default="seq2seq", choices=sorted(MODELS))
    parser.add_argument("--attention", default="bahdanau,none", help="the recurrent model's attentions")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--runs", default="/tmp/bench_translation_runs")
    args = parser.parse_args()
    store = RunStore(args.runs)
    print(f"{'dataset':<15}{'attention':<11}{'exact match':>12}{'token acc':>10}{'BLEU':>7}{'chrF':>7}{'train s':>9}")
    options, attentions, learning_rate = MODELS[args.model]
    for task in args.tasks.split(","):
        for attention in attentions or args.attention.split(","):
            model_options = options if attentions else {**options, "attention": attention}
            spec = ExperimentSpec(DATASETS[task], args.model, {}, model_options, epochs=args.epochs, batch_size=64,
                                  learning_rate=learning_rate, early_stopping=args.epochs)
            started = time.perf_counter()
            run = run_experiment(spec, store=store)
            seconds = time.perf_counter() - started
            m = run.metrics["model"]
            print(f"{DATASETS[task]:<15}{attention:<11}{100 * m['exact_match']:>11.2f}%{100 * m['token_accuracy']:>9.2f}%"
                  f"{m['bleu']:>7.1f}{m['chrf']:>7.1f}{seconds:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
