"""An IPython kernel with resource limits, for grading (``python -m autogradlab.lessons.limited_kernel``).

    python -m autogradlab.lessons.limited_kernel --memory-mb 2048 --file-mb 64 -f CONNECTION_FILE

sets ``RLIMIT_AS`` (address space: a huge allocation raises MemoryError in the cell instead
of taking the machine down) and ``RLIMIT_FSIZE`` (no file larger than this) for the kernel
process and whatever it starts, then runs ipykernel. Time limits are the grader's job (it
watches each cell and kills the kernel). POSIX only; elsewhere the limits are skipped.
"""
from __future__ import annotations

import sys


def _limit(name, megabytes):
    try:
        import resource
    except ImportError:  # Windows: no rlimits
        return
    if int(megabytes) <= 0:    # 0: no limit (e.g. CUDA reserves far more address space than it uses)
        return
    value = int(megabytes) * 1024 * 1024
    kind = getattr(resource, name)
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value if hard == resource.RLIM_INFINITY else hard))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    limits = {"--memory-mb": "RLIMIT_AS", "--file-mb": "RLIMIT_FSIZE"}
    rest = []
    while argv:
        arg = argv.pop(0)
        if arg in limits:
            _limit(limits[arg], argv.pop(0))
        else:
            rest.append(arg)
    from ipykernel import kernelapp
    kernelapp.launch_new_instance(argv=rest)


if __name__ == "__main__":
    main()
