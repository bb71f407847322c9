"""``python -m evalcore.cli``."""

import sys

from evalcore.cli.commands import main

sys.exit(main())
