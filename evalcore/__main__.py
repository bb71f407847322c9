"""``python -m evalcore``: the same as the ``evalcore`` command."""

import sys

from evalcore.cli.parser import main

if __name__ == "__main__":
    sys.exit(main())
