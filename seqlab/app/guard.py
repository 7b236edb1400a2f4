"""Keep Streamlit's per-rerun Keras cleanup away from a training job.

After every script run (fragment reruns included) Streamlit calls
``keras.backend.clear_session()``: that replaces Keras's global state (the
seed generator that ``set_random_seed`` installed, name counters), clears
TensorFlow's kernel cache and runs a full garbage collection. Measured here:
with the live view polling every 0.5 s, energy/LSTM for 2 epochs took 100 s
instead of 4 s, and a run's randomness no longer depended on its seed alone.
Its full garbage collection alone took ~0.8 s of every rerun of a page.

``install()`` wraps ``keras.backend.clear_session`` so that a call from any
other thread is skipped while a seqlab training thread is alive; otherwise
it runs without the full collection (``free_memory=False``: Python's own
collector still frees the cycles). The CLI and the library never import this module.
"""

from __future__ import annotations

import functools
import threading

import keras

from seqlab.training.jobs import WORKER_THREAD_NAME


def training_running() -> bool:
    """A seqlab training thread other than the calling one is alive."""
    me = threading.current_thread()
    return any(t.name.startswith(WORKER_THREAD_NAME) and t is not me and t.is_alive() for t in threading.enumerate())


def install() -> None:
    """Idempotent: wrap ``keras.backend.clear_session`` once per process."""
    original = keras.backend.clear_session
    if getattr(original, "_seqlab_guarded", False):
        return

    @functools.wraps(original)
    def clear_session(*args, **kwargs):
        if training_running():
            return None  # Streamlit's cleanup between reruns: not while a model trains
        # Without its gc.collect: a full collection of a process holding TensorFlow, at every rerun
        return original(*args, **{"free_memory": False, **kwargs})

    clear_session._seqlab_guarded = True
    keras.backend.clear_session = clear_session
