"""Course tooling for the autogradlab lessons (``lessons/*.ipynb``).

- :mod:`.helpers`: small notebook helpers with deterministic output (``show_error``,
  ``show_warnings``, ``fmt``, ``gpu_available``, ...), used by the lessons and by the
  spec notebooks in ``notebooks/``.
- :mod:`.checks`: the exercise checks. Each one prints a single plain-words verdict
  ("correct", "not yet implemented", or exactly what differs) and never raises.
- :mod:`.student`: makes student copies of the lessons (solutions replaced by stubs).

Command line::

    python -m autogradlab.lessons student lessons/ OUTDIR   # write student copies
    python -m autogradlab.lessons grade NOTEBOOK_OR_DIR...  # run notebooks, tabulate the checks
"""
from . import checks, helpers  # noqa: F401
from .helpers import fmt, gpu_available, show_error, show_warnings  # noqa: F401

__all__ = ["checks", "helpers", "fmt", "gpu_available", "show_error", "show_warnings"]
