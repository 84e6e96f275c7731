"""``python -m irgrad``: the irgrad command line."""

import sys

from irgrad.cli import main

if __name__ == "__main__":
    sys.exit(main())
