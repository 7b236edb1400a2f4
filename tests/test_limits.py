"""Classroom limits: environment over config file over defaults, bad values named."""

import pytest

from seqlab.limits import (
    ENV, FIELDS, Limits, check_data_size, check_memory, check_work, current_limits,
)


@pytest.fixture(autouse=True)
def _no_server_settings(monkeypatch):
    for name in (*ENV.values(), "SEQLAB_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def test_defaults_without_settings():
    assert current_limits() == Limits()
    assert Limits().max_concurrent_jobs == 1


def test_every_limit_has_its_variable():
    assert set(ENV) == set(FIELDS)
    assert ENV["max_epochs"] == "SEQLAB_MAX_EPOCHS"
    assert ENV["max_concurrent_jobs"] == "SEQLAB_MAX_JOBS"
    assert ENV["max_upload_mb"] == "SEQLAB_MAX_UPLOAD_MB"


def test_environment_over_file_over_defaults(tmp_path, monkeypatch):
    config = tmp_path / "seqlab.toml"
    config.write_text("[limits]\nmax_epochs = 50\nmax_parameters = 100_000\nmax_concurrent_jobs = 3\n")
    monkeypatch.setenv("SEQLAB_CONFIG", str(config))
    monkeypatch.setenv("SEQLAB_MAX_EPOCHS", "20")
    limits = current_limits()
    assert limits.max_epochs == 20  # the environment wins
    assert limits.max_parameters == 100_000 and limits.max_concurrent_jobs == 3  # the file
    assert limits.max_sequence_length == Limits().max_sequence_length  # the default


def test_an_edited_file_applies_without_a_restart(tmp_path, monkeypatch):
    config = tmp_path / "seqlab.toml"
    config.write_text("[limits]\nmax_epochs = 50\n")
    monkeypatch.setenv("SEQLAB_CONFIG", str(config))
    assert current_limits().max_epochs == 50
    config.write_text("[limits]\nmax_epochs = 5\n")
    assert current_limits().max_epochs == 5


@pytest.mark.parametrize("text", ["abc", "0", "-3", "1.5", "1e3"])
def test_a_bad_variable_is_named(monkeypatch, text):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", text)
    with pytest.raises(ValueError, match=f"SEQLAB_MAX_JOBS must be a positive integer, got '{text}'"):
        current_limits()


@pytest.mark.parametrize(
    "content, message",
    [
        ("[limits]\nmax_epoch = 5\n", r"Unknown key\(s\) \['max_epoch'\] .*valid keys: max_epochs"),
        ("[limits]\nmax_epochs = 'many'\n", "max_epochs in .* must be a positive integer, got 'many'"),
        ("[limits]\nmax_epochs = true\n", "max_epochs in .* must be a positive integer, got True"),
        ("[limits]\nmax_epochs = 0\n", "max_epochs in .* must be a positive integer"),
        ("limits = 3\n", r"\[limits\] in .* must be a table"),
        ("[limits\n", "cannot be read"),
    ],
)
def test_a_bad_file_is_named(tmp_path, monkeypatch, content, message):
    config = tmp_path / "seqlab.toml"
    config.write_text(content)
    monkeypatch.setenv("SEQLAB_CONFIG", str(config))
    with pytest.raises(ValueError, match=message):
        current_limits()


@pytest.mark.parametrize("content, message", [
    ("[limits]\nmax_epochs = " + "[" * 5000 + "]" * 5000, "nests arrays or objects more than 100 levels deep"),
    ("[limits]\nmax_epochs = 5\n" + "# a comment\n" * 10_000, "the limit is 65,536 bytes"),
], ids=["deeply nested", "too large"])
def test_a_config_file_is_read_within_bounds(tmp_path, monkeypatch, content, message):
    config = tmp_path / "seqlab.toml"
    config.write_text(content)
    monkeypatch.setenv("SEQLAB_CONFIG", str(config))
    with pytest.raises(ValueError, match=f"The config file .*seqlab.toml .*{message}"):
        current_limits()


def test_a_missing_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ValueError, match="SEQLAB_CONFIG names .*nope.toml.*not a file"):
        current_limits()


def test_data_size_and_sequence_length(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    check_data_size(1000, 100, 2)  # 0.8 MB
    with pytest.raises(ValueError, match=r"would take 2 MB, more than 1 MB .*SEQLAB_MAX_DATA_MB"):
        check_data_size(1000, 100, 5)
    monkeypatch.setenv("SEQLAB_MAX_SEQUENCE_LENGTH", "50")
    with pytest.raises(ValueError, match="Sequences of 51 steps are longer than 50"):
        check_data_size(1, 51, 1)


def test_memory_and_work_estimates_name_their_limit_and_the_way_out(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "2")
    check_memory(2 * 1024 * 1024, "the table", "use less")
    with pytest.raises(ValueError, match=r"^The table would take 3 MB, more than 2 MB \(the server's limit: "
                                         r"SEQLAB_MAX_DATA_MB or max_data_mb in the SEQLAB_CONFIG file\); use less\.$"):
        check_memory(3 * 1024 * 1024, "the table", "use less")
    assert Limits().max_work_seconds == 60
    monkeypatch.setenv("SEQLAB_MAX_WORK_SECONDS", "10")
    check_work(10, "counting", "count less")
    with pytest.raises(ValueError, match=r"^Counting would take about 11 s, more than 10 s \(the server's limit: "
                                         r"SEQLAB_MAX_WORK_SECONDS or max_work_seconds in the SEQLAB_CONFIG "
                                         r"file\); count less\.$"):
        check_work(11, "counting", "count less")


def test_the_work_limit_from_the_config_file(tmp_path, monkeypatch):
    config = tmp_path / "seqlab.toml"
    config.write_text("[limits]\nmax_work_seconds = 5\n")
    monkeypatch.setenv("SEQLAB_CONFIG", str(config))
    with pytest.raises(ValueError, match="about 6 s, more than 5 s .*max_work_seconds in the SEQLAB_CONFIG file"):
        check_work(6, "counting", "count less")


def test_input_limits_follow_the_server(monkeypatch):
    from seqlab.inputs import InputLimits, input_limits

    assert input_limits() == InputLimits()  # the same defaults in both places
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_MB", "2")
    monkeypatch.setenv("SEQLAB_MAX_UPLOAD_ROWS", "100")
    limits = input_limits(allow_compressed=True)
    assert limits.max_bytes == limits.max_decompressed_bytes == 2 * 1024 * 1024
    assert limits.max_rows == 100 and limits.allow_compressed
