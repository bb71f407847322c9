"""``python -m evalcore.cli``."""

import sys

from evalcore.cli.parser import main

sys.exit(main())
