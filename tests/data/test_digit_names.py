"""digit_names: an image read row by row in, the digit's name out letter by letter, with one [EOS]."""

import numpy as np

from seqlab.data import load_dataset
from seqlab.data.digit_names import NAMES
from seqlab.data.text_pairs import EOS_ID, START_ID


def test_images_in_names_out():
    data = load_dataset("digit_names")
    assert data.task == "translate" and data.tokenizer is None and data.lookback == 8 and data.horizon == 6
    assert data.target_tokenizer.special_id("[START]") == START_ID and data.target_tokenizer.special_id("[EOS]") == EOS_ID
    total = 0
    for split in data.splits.values():
        total += len(split)
        assert split.x.shape[1:] == (8, 8) and split.x.dtype == np.float32 and split.mask is None
        assert ((split.y == EOS_ID).sum(axis=1) == 1).all()
        assert (split.teacher[:, 0] == START_ID).all() and (split.teacher[:, 1:] == split.y[:, :-1]).all()
        names = [data.target_tokenizer.decode(row[: list(row).index(EOS_ID)]) for row in split.y]
        assert names == data.frame["target"].iloc[split.origin].tolist() and set(names) <= set(NAMES)
    assert total == 1797
    train = data.splits["train"].x.reshape(-1, 8)
    np.testing.assert_allclose(data.scaler.mean, train.mean(axis=0), rtol=1e-5)
