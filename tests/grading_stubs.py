"""Stand-ins for grading one submission, at module level in a light module: the grading pool's spawned workers
import it (importing a test module would cost each worker seconds)."""
import os


def job_that_kills_its_worker(job):
    """The job named 'killer' ends its worker process at once, as a grader running out of memory would; the
    others take a moment (so they are still running when it dies), then return an empty result."""
    import time

    from autogradlab.lessons.grading import Result
    if "killer" in job[0]:
        os._exit(1)
    time.sleep(0.3)
    return Result(job[0], job[5], job[1])
