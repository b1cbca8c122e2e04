"""``python -m koudian``: the command line."""

import sys

from koudian.cli import main

sys.exit(main())
