"""A run's identity: one hash of what determines it (spec with seed, data content, code), stable across processes;
the store finds the newest finished run of an identity."""

import json
import subprocess
import sys
from pathlib import Path

from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.identity import source_hash, spec_identity
from tests.data.test_user_series import hourly

REPO = Path(__file__).resolve().parents[2]
TINY = ExperimentSpec("sine", "mlp", data_options={"length": 300, "lookback": 12, "horizon": 4},
                      model_options={"units": 4, "layers": 1}, epochs=1, batch_size=32)


def test_the_identity_is_the_same_in_a_fresh_process():
    script = (
        "import json; from seqlab.training import ExperimentSpec; from seqlab.training.identity import spec_identity;"
        f"print(spec_identity(ExperimentSpec.from_dict(json.loads({json.dumps(TINY.to_json())}))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == spec_identity(TINY)


def test_the_identity_changes_with_the_spec_and_the_seed_not_with_defaults_spelt_out():
    base = spec_identity(TINY)
    assert spec_identity(TINY.resolved()) == base  # the defaults filled in: the same training
    others = [TINY.with_overrides({"epochs": 2}), TINY.with_overrides({"seed": 1}),
              TINY.with_overrides({"data.seed": 1}), TINY.with_overrides({"units": 5})]
    assert len({base, *map(spec_identity, others)}) == 5


def test_the_identity_changes_with_the_datas_content_under_one_spec(tmp_path):
    path = tmp_path / "load.csv"
    frame = hourly()
    frame.to_csv(path, index=False)
    spec = ExperimentSpec("csv", "arx", data_options={"path": str(path), "time": "Date", "target": "Load",
                                                      "lookback": 24, "horizon": 6})  # no sha256: not pinned
    before = spec_identity(spec)
    assert spec_identity(spec) == before
    frame.loc[10, "Load"] += 1.0
    frame.to_csv(path, index=False)
    assert spec_identity(spec) != before


def test_the_code_version_hashes_every_source_by_its_path(tmp_path):
    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "a.py").write_text("x = 1\n")
    (package / "notes.txt").write_text("not code")
    first = source_hash(package)
    (package / "notes.txt").write_text("changed, still not code")
    assert source_hash(package) == first
    (package / "sub" / "a.py").write_text("x = 2\n")
    second = source_hash(package)
    assert second != first
    (package / "sub" / "a.py").rename(package / "a.py")
    assert source_hash(package) not in (first, second)


def test_a_run_records_its_identity_and_the_store_finds_the_newest_finished_one(tmp_path):
    store = RunStore(tmp_path / "runs")
    identity = spec_identity(TINY)
    assert store.find_identical(identity) is None
    first = run_experiment(TINY, store=store, savedmodel=False)
    assert first.meta.identity == identity  # the same as computed before training, from the spec alone
    second = run_experiment(TINY, store=store, savedmodel=False)
    assert store.find_identical(identity).run_id == max(first, second, key=lambda r: r.meta.created).run_id
    other = run_experiment(TINY.with_overrides({"seed": 3}), store=store, savedmodel=False)
    assert other.meta.identity != identity and store.find_identical(other.meta.identity).run_id == other.run_id


def test_a_cancelled_or_broken_run_is_never_served(tmp_path):
    import threading

    store = RunStore(tmp_path / "runs")
    stop = threading.Event()
    stop.set()  # cancelled at its first batch
    cancelled = run_experiment(TINY, store=store, cancel=stop, savedmodel=False)
    assert cancelled.status == "cancelled" and store.find_identical(cancelled.meta.identity) is None
    run = run_experiment(TINY, store=store, savedmodel=False)
    (run.path / "model.keras").write_bytes(b"damaged")
    assert store.find_identical(run.meta.identity) is None
