"""``python -m seqlab``: see seqlab.cli."""

import os
import sys

from seqlab.quiet import quiet_tensorflow_import

quiet_tensorflow_import()

from seqlab.cli import main  # noqa: E402

sys.exit(main())
