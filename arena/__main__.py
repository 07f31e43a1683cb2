"""``python -m arena`` runs the command line."""

import sys

from arena.cli import main
from worker.children import exit_with_parent

exit_with_parent()  # a platform child (worker, referee, bot) stops when its parent is gone
sys.exit(main())
