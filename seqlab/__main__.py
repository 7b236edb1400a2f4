"""``python -m seqlab``: see seqlab.cli. Importing this module runs nothing."""

import sys

from seqlab.cli import main

if __name__ == "__main__":
    sys.exit(main())
