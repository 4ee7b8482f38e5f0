"""Faults: the error a lost worker or a stuck cluster gives, and the checkpoints iterative
algorithms keep so that they restart from their last completed iteration.

A worker lost mid-call cancels the futures of the data it held (Dask cannot recompute
data sent with ``scatter``); every wait of :mod:`gblas.distributed` has a timeout.  Both
become a :class:`WorkerLost`.  An iterative algorithm keeps a copy of its state vectors
on the client every ``every`` iterations (:class:`Checkpoint`); on a WorkerLost it asks
the matrix to rebuild its blocks on the workers alive then (from the local matrix it was
distributed from, or from the generator's recipe) and resumes from that copy.  A matrix
that cannot be rebuilt, or a fault that repeats, ends in the WorkerLost: never a hang,
never a silent wrong answer.

Examples
--------
>>> ck = Checkpoint(every=2)
>>> ck.due(1), ck.due(2)
(False, True)
>>> ck.save(2, {"r": [0.5, 0.5]}); ck.iteration, ck.state["r"]
(2, [0.5, 0.5])
"""

from __future__ import annotations

from ..exceptions import GraphBLASError

__all__ = ["WorkerLost", "Checkpoint", "is_fault", "lost", "scatter"]


class WorkerLost(GraphBLASError, RuntimeError):
    """A worker holding part of a distributed object was lost, or a distributed call
    waited longer than its timeout."""


def is_fault(exc: BaseException) -> bool:
    """Whether ``exc`` comes from the cluster (a lost worker, cancelled data, a closed
    connection, a timeout) rather than from the computation itself."""
    if isinstance(exc, WorkerLost):
        return True
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & {"CancelledError", "FutureCancelledError", "KilledWorker",
                         "CommClosedError", "TimeoutError", "StreamClosedError",
                         "FutureLostError"})


def lost(call: str, exc: BaseException, timeout: float | None) -> WorkerLost:
    """The WorkerLost for a fault ``exc`` met by ``call``."""
    what = (f"did not finish within the timeout of {timeout:g} s"
            if "Timeout" in type(exc).__name__ and timeout is not None else
            "lost a worker holding part of its data")
    return WorkerLost(
        f"{call}: the cluster {what} ({type(exc).__name__}: {exc}). Rebuild the matrix on "
        "the workers alive now with D.rebuild() (a matrix made by distribute() or a "
        "distributed generator), or raise the timeout with distribute(..., timeout=...).")


def scatter(client, obj, worker: str, call: str, timeout: float | None = None):
    """``client.scatter(obj)`` to ``worker`` (a future); a fault becomes a WorkerLost,
    and so does any error while ``worker`` is no longer in the cluster (a scheduler that
    has already removed it answers a scatter to it with a KeyError).

    Examples
    --------
    >>> class Gone:  # a client whose scheduler no longer knows the worker
    ...     def scatter(self, *a, **k): raise KeyError("tcp://10.0.0.9:4000")
    ...     def nthreads(self): return {"tcp://10.0.0.8:4000": 1}
    >>> try:
    ...     scatter(Gone(), [1], "tcp://10.0.0.9:4000", "distribute")
    ... except WorkerLost as e:
    ...     print(str(e)[:62])
    distribute: the cluster lost a worker holding part of its data
    """
    try:
        return client.scatter(obj, workers=[worker], hash=False, timeout=timeout)
    except Exception as e:  # noqa: BLE001 - sorted below
        if is_fault(e) or _gone(client, worker):
            raise lost(call, e, timeout) from e
        raise


def _gone(client, worker: str) -> bool:
    """Whether ``worker`` has left the cluster (True when the scheduler cannot say)."""
    try:
        return worker not in client.nthreads()
    except Exception:  # noqa: BLE001 - a scheduler that cannot answer is a cluster fault
        return True


class Checkpoint:
    """The last saved state of an iterative algorithm (numpy arrays on the client).

    Parameters
    ----------
    every : int
        Save every ``every`` iterations (0: never; a fault then restarts from the start).
    """

    def __init__(self, every: int = 5) -> None:
        self.every = int(every)
        self.iteration = 0
        self.state = None
        self.restarts = 0

    def due(self, iteration: int) -> bool:
        """Whether ``iteration`` (1-based, completed) is one to save."""
        return self.every > 0 and iteration % self.every == 0

    def save(self, iteration: int, state) -> None:
        """Keep ``state`` as the state after ``iteration``."""
        self.iteration = int(iteration)
        self.state = state
