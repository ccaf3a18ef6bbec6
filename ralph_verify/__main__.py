"""``python -m ralph_verify``."""

import sys

from ralph_verify.cli import main

if __name__ == "__main__":
    sys.exit(main())
