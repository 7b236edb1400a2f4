"""``python -m seqlab``: see seqlab.cli. Importing this module runs nothing.

Ctrl-C exits with 130 (128 + SIGINT) whenever it comes: while the modules
load, during a command (``seqlab.cli.main``), and while the process ends after
it (TensorFlow's teardown takes a second or two after ``predict``): from then
on the signal ends the process itself, which a shell reports as 130, where
Python's own handler would have had no code left to run and exited 0.

``train --backend jax`` sets ``KERAS_BACKEND`` before the CLI's modules load:
Keras reads it once, when first imported (``seqlab.backend``).
"""

import os
import signal
import sys


def run() -> int:
    from seqlab.backend import BACKEND_ENV, BACKENDS, backend_from_argv

    backend = backend_from_argv(sys.argv[1:])
    if backend in BACKENDS:  # Keras picks its backend when first imported, and the CLI's modules import it
        os.environ[BACKEND_ENV] = backend
    try:
        from seqlab.cli import EXIT_INTERRUPTED, main
    except KeyboardInterrupt:  # pressed while the modules load
        print("\ninterrupted", file=sys.stderr)
        return 130
    try:
        code = main()
        sys.stdout.flush()  # the answer is out before the process may be ended by a signal
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not train's "ignore a late press"
            signal.signal(signal.SIGINT, signal.SIG_DFL)
    except KeyboardInterrupt:  # pressed just as the command returned
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":
    sys.exit(run())
