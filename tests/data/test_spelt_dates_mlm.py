import datetime

import numpy as np

from seqlab.data import get_dataset, load_dataset
from seqlab.data.spelt_dates_mlm import spelt_date, spelt_dates_frame


def test_a_date_is_written_in_digits_then_its_day_and_month_in_words():
    assert spelt_date(datetime.date(2024, 3, 12)) == "12.03.2024 : the twelfth of march"
    assert spelt_date(datetime.date(1957, 11, 1)) == "01.11.1957 : the first of november"
    assert spelt_date(datetime.date(2099, 12, 31)) == "31.12.2099 : the thirty-first of december"


def test_every_text_spells_its_own_date():
    frame = spelt_dates_frame(300, seed=3)
    for iso, text in zip(frame["date"], frame["text"]):
        date = datetime.date.fromisoformat(iso)
        assert text == spelt_date(date) and text.startswith(date.strftime("%d.%m.%Y : the "))
        assert text.endswith(f" of {date.strftime('%B').lower()}")


def test_the_same_seed_draws_the_same_data_and_another_seed_other_dates():
    one, again = load_dataset("spelt_dates_mlm", samples=200), load_dataset("spelt_dates_mlm", samples=200)
    assert one.frame.equals(again.frame)
    assert all(np.array_equal(one.splits[s].x, again.splits[s].x) for s in one.splits)
    other = load_dataset("spelt_dates_mlm", samples=200, seed=1)
    assert set(other.frame["text"]) != set(one.frame["text"])


def test_it_is_masked_lm_data_whose_month_and_its_digits_are_words_of_their_own():
    data = load_dataset("spelt_dates_mlm", samples=200)
    assert data.task == get_dataset("spelt_dates_mlm").task == "masked_lm"
    tokens = data.tokenizer.tokens("12.03.2024 : the twelfth of march")
    assert tokens == ["12", ".", "03", ".", "2024", ":", "the", "twelfth", "of", "march"]
    trained = data.frame["text"][data.frame["split"] == "train"].iloc[0]
    assert "[UNK]" not in data.tokenizer.tokens(trained)
    assert data.splits["train"].x.shape[1] == data.options["max_tokens"]
