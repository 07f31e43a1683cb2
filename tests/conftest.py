"""What every test shares: no test reads the developer's own ``arena login`` (the user
commands would then call a remote platform), so the user's config folder is a fresh
one for the whole run."""

from __future__ import annotations

import os
import tempfile

os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="arena-test-config-")
os.environ.pop("ARENA_PLATFORM", None)
