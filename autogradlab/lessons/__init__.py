"""Course tooling for the autogradlab lessons (``lessons/*.ipynb``).

- :mod:`.helpers`: small notebook helpers with deterministic output (``show_error``,
  ``show_warnings``, ``fmt``, ``gpu_available``, ...), used by the lessons and by the
  spec notebooks in ``notebooks/``.
- :mod:`.checks`: the exercise checks. Each one prints a single plain-words verdict
  ("correct", "not yet implemented", or exactly what differs) and never raises.
- :mod:`.student`: makes student copies of the lessons (solutions replaced by stubs).
- :mod:`.grading`, :mod:`.judges`, :mod:`.probes`: grading a class. Each submission runs in a
  fresh kernel with limits; the judges call its functions on fresh inputs and decide every
  verdict outside that kernel.

Command line::

    python -m autogradlab.lessons student lessons/ OUTDIR   # write student copies
    python -m autogradlab.lessons grade SUBMISSIONS... --csv grades.csv   # grade a class
"""
from . import checks, helpers  # noqa: F401
from .helpers import fmt, gpu_available, show_error, show_warnings  # noqa: F401

__all__ = ["checks", "helpers", "fmt", "gpu_available", "show_error", "show_warnings"]
