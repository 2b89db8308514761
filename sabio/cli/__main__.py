"""``python -m sabio.cli``: the ``sabio`` command without its console script."""

import sys

from sabio.cli import main

sys.exit(main())
