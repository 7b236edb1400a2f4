import sys

import pytest

from seqlab.inspect import saved_recurrent_layers
from tests.test_keras_file import rewrite_config


def test_recurrent_layers_are_read_from_the_config(tmp_path):
    import keras

    import seqlab.layers

    inputs = keras.Input((6, 2))
    hidden = keras.layers.Bidirectional(seqlab.layers.LSTM(3, return_sequences=True), name="bi")(inputs)
    outputs = keras.layers.Dense(1)(keras.layers.GRU(2, name="keras_gru")(hidden))
    keras.Model(inputs, outputs).save(tmp_path / "m.keras")
    assert saved_recurrent_layers(tmp_path / "m.keras") == ["bi", "keras_gru"]


def test_a_config_naming_another_module_is_refused_without_importing_it(trained_run, tmp_path):
    def swap_top_class(config):
        return {**config, "module": "imaplib", "class_name": "IMAP4", "registered_name": None}

    crafted = rewrite_config(trained_run.keras_path, tmp_path / "m.keras", swap_top_class)
    assert "imaplib" not in sys.modules
    with pytest.raises(ValueError, match="'IMAP4' from module 'imaplib'"):
        saved_recurrent_layers(crafted)
    assert "imaplib" not in sys.modules
