"""The language, attention and Transformer lessons, in the lecture's order (registered on import).

Each preset is a shrunk copy of a named preset of ``seqlab.training.presets``
or of the notes' example (fewer epochs or steps, less data, smaller
networks). ``seconds`` is the wall time of the preset's runs one after
another, SavedModel export included, measured on the 2-core machine while
nothing else was training (load average below 2). A lesson with claims
(``seqlab.lessons.claim``) has its figures measured on its runs when the
page shows them; in the others every number comes from those runs, with
fixed seeds (``python -m seqlab train --preset <lesson name>``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from seqlab.lessons.claim import Claim
from seqlab.lessons.lesson import Lesson, register_lesson
from seqlab.lessons.measures import run_data, run_of, score, tokens_per_second
from seqlab.training.presets import GPT_SHAKESPEARE, Preset, _numbers, _sentiment
from seqlab.training.spec import ExperimentSpec
from seqlab.wording import counted

EMBEDDING = "seqlab.layers.embedding.learned.LearnedEmbedding"
ENCODER_BLOCK = "seqlab.layers.transformer.encoder_block.TransformerEncoderBlock"
DECODER_BLOCK = "seqlab.layers.transformer.decoder_block.TransformerDecoderBlock"
NUMBERS_LAST = 299  # attention-numbers reads 0..999: a third of them trains in a third of the time
DATE_BLANK = "12.03.2024 : the [MASK] of march"  # only "12" says which day: the context decides the blank
DAY_OF_BLANK = "twelfth"
MOVIE_BLANKS = "the film is [MASK] , and the acting is [MASK] ."
BLANKS = {"spelt_dates_mlm": DATE_BLANK, "movie_reviews_mlm": MOVIE_BLANKS}  # the fill-in view's text per dataset
HELD_OUT_DATES = 100  # held-out dates whose day, then month, is hidden
PROMPT = "ROMEO:\n"
CACHE_TOKENS = 60  # greedy tokens timed with and without the key/value cache


def _tokens(tokenizer: str, **data_options) -> ExperimentSpec:
    # The mean of the embeddings reads nothing but the tokens: the tokeniser is the only difference.
    return replace(_sentiment("mean_embedding"), data_options={"tokenizer": tokenizer, **data_options})


def _numbers_lesson(attention: str) -> ExperimentSpec:
    # attention-numbers with half the units at twice the rate, 12 epochs instead of 25.
    return replace(_numbers(attention, units=32), data_options={"last": NUMBERS_LAST}, epochs=12, learning_rate=1e-2)


def _against_bag_of_words() -> Claim:
    def measure(runs):
        block, bag = run_of(runs, "transformer"), run_of(runs, "mean_embedding", tokenizer="word")
        return {"epochs": block.spec["epochs"], "block": score(block, "accuracy"), "bag": score(bag, "accuracy")}

    def say(f):
        verdict = ("on short review sentences one block of attention does not beat a bag of words"
                   if holds(f) else "the block reads more than a bag of words here")
        return (f"Test accuracy after {counted(f['epochs'], 'epoch')}: the encoder block {f['block']:.2f}, the mean "
                "of the word "
                f"embeddings trained beside it (the Tokenisation lesson's word run) {f['bag']:.2f}: {verdict}.")

    def holds(f):
        return f["block"] < f["bag"] + 0.02

    return Claim("one block of attention does not beat a bag of words on short sentences", measure, say, holds)


def blanked_dates(text: str) -> dict[str, tuple[str, str]]:
    """``12.03.2024 : the twelfth of march`` with its day's word (the last piece of "twenty-first") and then its
    month hidden: ``{"day": (text with [MASK], "twelfth"), "month": (..., "march")}``."""
    start, _, rest = text.partition(" : the ")
    day, _, month = rest.partition(" of ")
    head, dash, last = day.rpartition("-")
    return {"day": (f"{start} : the {head}{dash}[MASK] of {month}", last),
            "month": (f"{start} : the {day} of [MASK]", month)}


def _filled_dates() -> Claim:
    """The date run's guesses for the hidden day, and month, of held-out dates: only their digits decide them."""
    from seqlab.tasks.masked_lm.fill_in import fill_in_model

    def measure(runs):
        run = run_of(runs, "bert", dataset="spelt_dates_mlm")
        data, model, tokenizer = run_data(run), run.load_model(), run.load_tokenizer()
        texts = data.frame["text"][data.frame["split"] == "test"].head(HELD_OUT_DATES).tolist()
        right = {"one_word": [], "two_words": [], "month": []}
        for text in texts:
            blanks = blanked_dates(text)
            for field, (blanked, word) in blanks.items():
                guess = fill_in_model(model, tokenizer, blanked, 1).blanks[0].tokens[0]
                which = field if field == "month" else ("two_words" if "-" in blanked else "one_word")
                right[which].append(guess == word)
        example = fill_in_model(model, tokenizer, DATE_BLANK, 1).blanks[0]
        return {"epochs": run.spec["epochs"], **{f"{k}_dates": len(v) for k, v in right.items()},
                **{k: float(np.mean(v)) if v else 0.0 for k, v in right.items()},
                "guess": example.tokens[0], "p": example.probabilities[0]}

    def say(f):
        verdict = "the blank is decided by its context" if holds(f) else "the context does not decide its blank yet"
        return (f"After {counted(f['epochs'], 'epoch')} on the dates {verdict}: "
                "the run names the hidden day of "
                f"{f['one_word']:.0%} of the {f['one_word_dates']} held-out dates whose day is one word (a guess is "
                f"right 1 time in 21) and fills “{DATE_BLANK}” with “{f['guess']}” (p = {f['p']:.2f}). Where the "
                f"day takes two words (“twenty-[MASK]”) it names the second for {f['two_words']:.0%} of "
                f"{f['two_words_dates']}, and the month for {f['month']:.0%} of {f['month_dates']}: pre-training "
                "always cuts a text before its last word, so it saw the month only after a [SEP], never as the "
                "fill-in reads it.")

    def holds(f):  # the digits, not chance: ten times a guess's 1 in 21, and the view's example right
        return f["one_word"] >= 10 / 21 and f["guess"] == DAY_OF_BLANK

    return Claim("masked LM on the dates fills a blank only the context decides", measure, say, holds)


def _movie_guesses() -> Claim:
    from seqlab.tasks.masked_lm.fill_in import fill_in_model

    def measure(runs):
        run = run_of(runs, "bert", dataset="movie_reviews_mlm")
        filled = fill_in_model(run.load_model(), run.load_tokenizer(), MOVIE_BLANKS, 3)
        baseline = "unigram_and_majority"
        return {"epochs": run.spec["epochs"], "mlm": score(run, "mlm_accuracy"),
                "top5": score(run, "mlm_top5_accuracy"), "unigram": score(run, "mlm_accuracy", baseline),
                "unigram_top5": score(run, "mlm_top5_accuracy", baseline), "nsp": score(run, "nsp_accuracy"),
                "majority": score(run, "nsp_accuracy", baseline), "guesses": [list(b.tokens) for b in filled.blanks]}

    def say(f):
        guesses = "; ".join(", ".join(f"“{t}”" for t in tokens) for tokens in f["guesses"])
        return (f"The movie-review run, after {counted(f['epochs'], 'epoch')} of pre-training, "
                f"guesses {f['mlm']:.1%} of "
                f"the held-out hidden words ({f['top5']:.1%} within its top five) where always guessing the most "
                f"frequent words scores {f['unigram']:.1%} ({f['unigram_top5']:.1%}), and next-sentence "
                f"prediction scores {f['nsp']:.2f} against the majority's {f['majority']:.2f}. For “{MOVIE_BLANKS}” "
                f"it guesses {guesses}: "
                + ("frequent tokens, whatever the context; a review's blank has many right answers, so a minute "
                   "of pre-training learns which words are common before it learns what they mean."
                   if holds(f) else "it reads more than word frequencies here."))

    def holds(f):
        return f["mlm"] < f["unigram"] + 0.1  # the contrast: little beyond word frequencies

    return Claim("a minute of masked LM on movie reviews learns word frequencies, not meaning", measure, say, holds)


def _against_markov() -> Claim:
    def measure(runs):
        run = run_of(runs, "gpt")
        markov = {name: score(run, "bits_per_character", name) for name in run.metrics["baselines"]
                  if name.startswith("markov_order_")}
        best = min(markov, key=markov.get)
        return {"steps": run.spec["steps"], "bits": score(run, "bits_per_character"), "markov": markov[best],
                "order": int(best.rpartition("_")[2])}

    def say(f):
        opening = f"After {f['steps']} steps the GPT's held-out loss is {f['bits']:.2f} bits per character"
        if holds(f):
            return (f"{opening}, below the best Markov chain's {f['markov']:.2f} (order {f['order']}): it has "
                    "learned more than counting the last characters.")
        return (f"{opening}: it is still behind the Markov chain of order {f['order']} ({f['markov']:.2f} bits), "
                "which only counts what followed the last characters. A minute of training is too little for a "
                "GPT: gpt-shakespeare under Longer experiments trains a larger one for 1,500 steps.")

    def holds(f):
        return f["bits"] < f["markov"]

    return Claim("the GPT beats the Markov baseline", measure, say, holds)


def _cache_speedup() -> Claim:
    def measure(runs):
        run = run_of(runs, "gpt")
        model, tokenizer = run.load_model(), run.load_tokenizer()
        cached, recomputed = (tokens_per_second(model, tokenizer, PROMPT, c, CACHE_TOKENS) for c in (True, False))
        return {"cached": cached, "recomputed": recomputed, "context": run.spec["data_options"]["lookback"]}

    def say(f):
        ratio = f["cached"] / f["recomputed"]
        return (f"Measured now on this machine: with the key/value cache {CACHE_TOKENS} greedy characters came at "
                f"{f['cached']:.0f} per second, recomputing the context at every step at {f['recomputed']:.0f}: "
                + (f"{ratio:.1f} times faster at this context of {f['context']}, more for a longer one."
                   if holds(f) else f"no faster ({ratio:.1f} times) at this context of {f['context']}; time it again "
                   "in the view above, on a busy machine the two timings wander."))

    def holds(f):
        return f["cached"] > f["recomputed"]

    return Claim("the key/value cache generates faster than recomputing", measure, say, holds)


def _reverse(positions: str) -> ExperimentSpec:
    # Reversing a string: the first output needs the last input, so the model must know where each token is.
    return ExperimentSpec(
        "toy_pairs", "transformer_seq2seq", data_options={"transform": "reverse", "samples": 2000},
        model_options={"layers": 1, "heads": 2, "width": 32, "ff_units": 64, "positions": positions},
        epochs=5, batch_size=32, learning_rate=3e-3,
    )


register_lesson(Lesson(
    topic="Tokenisation and embeddings",
    text=(
        "Before a network reads text, a tokeniser cuts it into tokens (characters, words, or BPE's merged pieces), "
        "each token becomes a one-hot vector $\\mathbf{x}_t$ and the embedding turns it into a learned column "
        "$\\mathbf{a}_i$ of $A$. The same sentiment classifier, the mean of its tokens' embeddings, is trained "
        "three times on the movie-review sentences, once per tokeniser: only the tokens differ."
    ),
    layers=("seqlab.text.layers.CharTokenizerLayer", "seqlab.text.layers.WordTokenizerLayer",
            "seqlab.text.layers.BPETokenizerLayer", "seqlab.layers.embedding.one_hot.OneHot", EMBEDDING),
    preset=Preset(
        name="tokens-and-embeddings",
        title="One sentence, three tokenisers: characters, words and BPE under the same classifier",
        description="The mean of the embeddings on movie_sentiment with character, word and BPE (2,000) tokens.",
        specs=(_tokens("char", max_tokens=200), _tokens("word"), _tokens("bpe", vocab_size=2000)),
    ),
    view="tokens-and-neighbours",
    notice=(
        "The sentence is 48 character tokens, 11 word tokens and 14 BPE pieces (“wonderful” becomes “␣wonder” + "
        "“ful”). Test accuracy: characters 0.59, words 0.80, BPE 0.76: a mean of character vectors has lost the "
        "words and is barely above chance. The word embedding's nearest neighbours of “wonderful” are words of "
        "the same sentiment (sadness, delicate, gentle, solid, heartbreaking; cosine 0.995), not synonyms: the "
        "embedding learned what the task rewards. Every character's neighbours sit at cosine ≈ 0.97: the "
        "character vectors hardly moved apart."
    ),
    seconds=31.3,
))

register_lesson(Lesson(
    topic="RNN versus CNN on sentiment",
    text=(
        "The notes' exercise: replace the recurrent network of a text classifier by a 1-D CNN. The GRU reads the "
        "sentence token by token and keeps a state; the CNN slides filters of widths 3, 4 and 5 over it and keeps "
        "each filter's largest response (max pooling over time). Same data, same budget."
    ),
    layers=("seqlab.layers.recurrent.gru.GRUCell", "seqlab.layers.convolution.ParallelConv1D",
            "seqlab.layers.pooling.MaskedGlobalMaxPooling1D"),
    preset=Preset(
        name="rnn-vs-cnn-sentiment",
        title="Sentiment of movie reviews: a GRU against a 1-D CNN",
        description="sentiment-rnn-vs-cnn's GRU (32 units) and CNN, 4 epochs each.",
        specs=(replace(_sentiment("gru", units=32), epochs=4), replace(_sentiment("cnn"), epochs=4)),
    ),
    view="contributions-side-by-side",
    notice=(
        "Test accuracy: GRU 0.76, CNN 0.77. On the default sentence both say positive (GRU p = 0.91, CNN 0.99), "
        "but for different reasons: the CNN's max pooling lets one strong n-gram decide (“wonderful” +0.44, "
        "“great” +0.02), the GRU spreads the credit (“wonderful” +0.22, “great” +0.13). Neither learned that "
        "“not” turns “great” around (−0.04 and −0.003): “not great .” alone is positive for both (p = 0.62 "
        "and 0.74)."
    ),
    seconds=31.2,
))

register_lesson(Lesson(
    topic="Encoder-decoder without and with attention",
    text=(
        "English number words into German ones, character by character: “seventy-three” is “dreiundsiebzig”, "
        "the units before the tens. Without attention the decoder reads the source only through the encoder's "
        "last state, one vector for the whole number; with Bahdanau's attention it takes a new weighted mean "
        "of the encoder's states at every step, $\\mathbf{c}_i = \\sum_j a_{ij} \\mathbf{h}_{e,j}$."
    ),
    layers=("seqlab.layers.decoder.AttentionDecoder", "seqlab.layers.attention.bahdanau.BahdanauAttention"),
    preset=Preset(
        name="encoder-decoder-attention",
        title="Numbers into German: an encoder-decoder without and with attention",
        description=f"attention-numbers on the numbers 0 to {NUMBERS_LAST}: a GRU encoder-decoder without "
                    "attention and with Bahdanau's.",
        specs=(_numbers_lesson("none"), _numbers_lesson("bahdanau")),
    ),
    view="translation-attention",
    notice=(
        "Of the 30 held-out numbers the run without attention writes 1 right, the run with attention 19 (token "
        "accuracy 0.65 against 0.90). Read the first run's mistakes: below 100 it mostly writes the units right "
        "and the tens wrong (forty-two → zweiundsiebzig, thirty-nine → neunundsechzig); every number above 100 "
        "ends “siebenundsechzig”. Its one context vector holds the end of the English source, the units, and "
        "has lost the beginning. Type “two hundred and forty-six” (the attention run writes "
        "zweihundertsechsundvierzig): writing “sechs” its decoder looks at the “six” at the end of the source, "
        "writing “vierzig” back at “forty”: the map crosses."
    ),
    seconds=48.1,
))

register_lesson(Lesson(
    topic="Luong local attention",
    text=(
        "Luong's local attention reads a window of $2D + 1$ source positions around a position $p_t$ that the "
        "decoder predicts from its own state (local-p), weighted by a Gaussian around $p_t$, so each step reads "
        "a few tokens instead of all of them. Reversing a string, $p_t$ must walk from the last character back "
        "to the first."
    ),
    layers=("seqlab.layers.attention.local.LocalAttention", "seqlab.layers.attention.luong.LuongAttention",
            "seqlab.layers.attention.attentional_state.AttentionalState"),
    preset=Preset(
        name="luong-local-attention",
        title="Reverse a string with Luong's local attention (local-p, D = 2)",
        description="toy_pairs (reverse, 2,000 strings of 1 to 8 digits): a GRU encoder-decoder (32 units) with "
                    "Luong's local-p attention, general score, window half-width D = 2, 20 epochs.",
        specs=(ExperimentSpec(
            "toy_pairs", "seq2seq", data_options={"transform": "reverse", "samples": 2000, "max_length": 8},
            model_options={"units": 32, "attention": "local", "score": "general", "predictive": True,
                           "half_width": 2},
            epochs=20, batch_size=32, learning_rate=1e-2,
        ),),
    ),
    view="translation-attention",
    notice=(
        "Nearly half of the 200 held-out strings come out exactly reversed (46 %, token accuracy 0.63), mostly "
        "the short ones. The map shows why: on “12345678” the predicted position starts at the last character "
        "(p_t = 7.0), jumps to the first for the next outputs (0.0, 0.0, 0.0), then returns to the end (7.9, "
        "8.0, 8.0, ...) and the window with it: the output starts right, “876”, the second and third from what "
        "the decoder's state carries, and goes wrong after (87647566). With 20 epochs the decoder has learned "
        "where to start, not yet how to keep walking; the window outside which every weight is 0 is drawn "
        "around p_t."
    ),
    seconds=39.0,
))

register_lesson(Lesson(
    topic="Self-attention and multi-head attention",
    text=(
        "In self-attention every token asks every other token (query against key), $a'_{ij} = \\mathbf{q}_i^T "
        "\\mathbf{k}_j / \\sqrt{d_k}$, and takes the softmax-weighted mean of their values. Multi-head attention "
        "runs $h$ such heads side by side, each with its own $W^Q, W^K, W^V$ on $d/h$ dimensions. One encoder "
        "block of four heads classifies the movie-review sentences, beside the mean of the word embeddings of the "
        "Tokenisation lesson."
    ),
    layers=("seqlab.layers.attention.self_attention.SelfAttention",
            "seqlab.layers.attention.multi_head.MultiHeadAttention", ENCODER_BLOCK),
    preset=Preset(
        name="self-attention-heads",
        title="Sentiment through one Transformer encoder block of four heads, beside a bag of words",
        description="The mean of the word embeddings (the Tokenisation lesson's word run: served when trained "
                    "there), and a Transformer encoder (1 block of 4 heads, width 32) on movie_sentiment, 3 epochs.",
        specs=(_tokens("word"),  # first: the view looks inside the last run, the block
               ExperimentSpec("movie_sentiment", "transformer",
                              model_options={"layers": 1, "heads": 4, "width": 32, "ff_units": 64, "dropout": 0.1},
                              epochs=3, batch_size=64, learning_rate=2e-3)),
    ),
    view="attention-heads",
    notice=(
        "Type a sentence and look where each head sends every token's attention, [CLS]'s included: [CLS] is "
        "what the classifier reads, so it collects the sentence through the heads. Do the heads look at the "
        "same words?"
    ),
    seconds=43.5,
    claims=(_against_bag_of_words(),),
))

register_lesson(Lesson(
    topic="Positional encoding",
    text=(
        "Self-attention reads its inputs as a set: permute the tokens and the outputs are permuted, nothing "
        "else, so “Live to Work” and “Work to Live” read the same. The Transformer adds $\\mathrm{PosEnc}(t)$ "
        "to the token at position $t$. The same small encoder-decoder Transformer learns to reverse strings of "
        "digits without positions and with the sinusoidal encoding."
    ),
    layers=("seqlab.layers.transformer.positional.SinusoidalPositionalEncoding",
            "seqlab.layers.transformer_decoder.TransformerDecoder"),
    preset=Preset(
        name="positional-encoding",
        title="Reverse a string: a Transformer without and with positions",
        description="toy_pairs (reverse, 2,000 strings): a 1-block encoder-decoder Transformer with positions "
                    "none and sinusoidal.",
        specs=(_reverse("none"), _reverse("sinusoidal")),
    ),
    view="positions",
    notice=(
        "Untrained, one encoder block gives “Live to Work” and “Work to Live” the same output vectors without "
        "positions (they differ by 1e-7, float rounding) and different ones with them (by 0.47). Trained: without "
        "positions 23 of the 200 held-out strings come out reversed (11.5 %), with the sinusoidal encoding 164 "
        "(82 %). The run without positions writes the source's digits in the wrong order: “402260” becomes "
        "“2046”, where the run with positions writes the reverse, “062204”. Its attention map runs mostly along "
        "the anti-diagonal; the run without positions spreads every row almost evenly (no weight above 0.22)."
    ),
    seconds=38.4,
))

register_lesson(Lesson(
    topic="BERT masking",
    text=(
        "BERT is pre-trained to guess hidden words from both sides: 15 % of the words are chosen, of those 80 % "
        "become [MASK], 10 % a random word and 10 % stay, and the loss is taken on the chosen ones. It reads "
        "[CLS] A [SEP] B [SEP] and also guesses at [CLS] whether B follows A. A small BERT pre-trains twice: on "
        "dates written in digits beside their words (“12.03.2024 : the twelfth of march”), where a hidden word "
        "has one right answer that only the digits tell, and on the movie-review sentences, where a blank has "
        "many."
    ),
    layers=("seqlab.models.bert_layers.SegmentIds", ENCODER_BLOCK, "seqlab.models.bert_layers.NextSentenceAtCLS"),
    preset=Preset(
        name="bert-masking",
        title="A small BERT pre-trained on dates beside their words, and on movie-review sentences",
        description="spelt_dates_mlm (4,000 dates): 2 encoder blocks of width 64, 20 epochs; movie_reviews_mlm "
                    "(pairs of at most 32 tokens, 5,000 words): 2 encoder blocks of width 32, 3 epochs; both "
                    "masked language model and next-sentence prediction.",
        specs=(ExperimentSpec("spelt_dates_mlm", "bert",
                              model_options={"layers": 2, "heads": 2, "width": 64, "ff_units": 128, "dropout": 0.0},
                              epochs=20, batch_size=64, learning_rate=5e-3),
               ExperimentSpec("movie_reviews_mlm", "bert", data_options={"max_tokens": 32, "vocab_size": 5000},
                              model_options={"layers": 2, "heads": 2, "width": 32, "ff_units": 64},
                              epochs=3, batch_size=64, learning_rate=2e-3)),
    ),
    view="bert-masking",
    notice=(
        "The shares are BERT's: over 2,000 maskings of the sentence about 15 % of the words are chosen, and of "
        "those about 80 % read [MASK], 10 % a random word, 10 % themselves; change the seed for another "
        "draw, as every training batch gets. A word the vocabulary lacks reads [UNK]: it stays as context but is "
        "never one to guess. Then hide a word of a date and change its digits: the guess follows them."
    ),
    seconds=136.7,
    claims=(_filled_dates(), _movie_guesses()),
))

register_lesson(Lesson(
    topic="GPT generation",
    text=(
        "GPT keeps the Transformer's decoder blocks without cross-attention: each position reads itself and what "
        "came before ($a_{ij} = 0$ for $j > i$) and predicts the next character. Generating, it draws a character "
        "from that distribution (divided by the temperature, cut to the top $k$), appends it and goes on; the "
        "key/value cache keeps every block's keys and values, so each new character is one small step."
    ),
    layers=(DECODER_BLOCK, "seqlab.layers.transformer.positional.LearnedPositionalEmbedding",
            "seqlab.layers.transformer.feed_forward.PositionwiseFeedForward"),
    preset=Preset(
        name="gpt-generation",
        title="A small GPT on Shakespeare, character by character",
        description="gpt-shakespeare shrunk: the first million characters, 2 blocks of width 64, 600 steps.",
        specs=(replace(GPT_SHAKESPEARE, data_options={**GPT_SHAKESPEARE.data_options, "embedding_dim": 64,
                                                      "characters": 1_000_000},
                       model_options={**GPT_SHAKESPEARE.model_options, "layers": 2, "width": 64},
                       steps=600, epochs=4, warmup_steps=60),),
    ),
    view="gpt-generation",
    notice=(
        "From “ROMEO:” try greedy decoding (temperature 0), then temperature 0.8, top-k 5 and temperature 1.5: "
        "which of them repeats itself, which writes word-shaped strings, which lets rare characters in? Then time "
        "the key/value cache against recomputing the context."
    ),
    seconds=45.6,
    claims=(_against_markov(), _cache_speedup()),
))
