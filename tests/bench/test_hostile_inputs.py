"""The hostile-input bench's own machinery: its limits kill, its judge is strict, its cases run."""

import io
import sys
import zipfile

import pytest

from bench.hostile_inputs import Bench, Case, Cli, Lib, Outcome, all_cases, judge, run_process, zip_attack


def test_a_process_past_its_memory_bound_is_killed(tmp_path):
    hog = "import time; x = bytearray(400 * 2**20); x[::4096] = b'1' * len(x[::4096]); time.sleep(30)"
    outcome = run_process([sys.executable, "-c", hog], cwd=tmp_path, env={}, seconds=20, memory_mb=150)
    assert outcome.killed == "memory" and outcome.rc is None and outcome.seconds < 15


def test_a_process_past_its_time_is_killed(tmp_path):
    outcome = run_process([sys.executable, "-c", "import time; time.sleep(30)"], cwd=tmp_path, env={}, seconds=1)
    assert outcome.killed == "time" and outcome.seconds < 5


def test_a_refusal_holds_only_as_one_error_line_without_a_traceback():
    case = Case("sizes", "x", lambda bench, folder: None, "refused")
    assert judge(case, Cli([]), Outcome(rc=2, err="error: too big (the limit: X)\n")) is None
    assert "traceback" in judge(case, Cli([]), Outcome(rc=2, err="Traceback (most recent call last):\nerror: x\n"))
    assert "2 lines" in judge(case, Cli([]), Outcome(rc=2, err="error: a\nerror: b\n"))
    assert "not 2" in judge(case, Cli([]), Outcome(rc=1, err="error: a\n"))
    assert "accepted" in judge(case, Lib("scan", []), Outcome(rc=0, value={"runs": []}))
    recursion = {"type": "RecursionError", "message": "", "value_error": False, "traceback": "RecursionError: x"}
    assert "instead of a ValueError" in judge(case, Lib("scan", []), Outcome(rc=1, error=recursion))


def test_the_zip_attacks_are_in_the_archive_as_named():
    members = {"r/meta.json": b"{}", "r/model.keras": b"abc"}
    encrypted = zipfile.ZipFile(io.BytesIO(zip_attack("encrypted flag", members, "meta.json")))
    assert encrypted.getinfo("secret").flag_bits & 1
    lying = zipfile.ZipFile(io.BytesIO(zip_attack("declared size lies", members, "meta.json")))
    assert lying.getinfo("r/meta.json").file_size == 1
    both = zipfile.ZipFile(io.BytesIO(zip_attack("a then a/b", members, "meta.json")))
    assert {"a", "a/b"} <= set(both.namelist())


@pytest.mark.parametrize("name", [
    "runs --runs-dir on someone's home folder",  # the sweep must leave files seqlab did not make
    "SEQLAB_CONFIG fifo: cli train",  # a FIFO as the server's config: refused, not read forever
])
def test_a_case_runs_through_the_real_cli(tmp_path, name):
    case = next(c for c in all_cases() if c.name == name)
    bench = Bench(tmp_path, runs_from=None)
    problem, outcome = bench.run(case, 0)
    assert problem is None, problem
    assert outcome.rc == (0 if case.expect == "ok" else 2)
