"""Import TensorFlow without its C++ start-up chatter (for the CLI and the app).

``TF_CPP_MIN_LOG_LEVEL`` does not silence the lines absl prints before its
logging is initialised (oneDNN, CUDA probing), so stderr is muted at the file
descriptor level for the import only. Python errors still surface: an import
failure is raised after stderr is restored.
"""

import os


def quiet_tensorflow_import() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        import tensorflow  # noqa: F401
        import tensorflow.python.framework.config as tf_config

        tf_config.list_physical_devices("GPU")  # CUDA probing prints here, on first use
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
