"""The process-group functions of mycel.communication (MindSpore 2.x names and defaults).

The state is one C++ ``_ProcessGroups`` object (src/comm/process_groups.h), made by ``init``
and dropped by ``release``; every function below asks it. Errors: RuntimeError before
``init`` or when a peer does not arrive within the timeout; ValueError for a bad group name,
rank or rank list; TypeError for arguments of the wrong type.
"""
import os

from mycel import _mycel as _C

HCCL_WORLD_COMM_GROUP = _C._WORLD_COMM_GROUP
NCCL_WORLD_COMM_GROUP = _C._WORLD_COMM_GROUP


class GlobalComm:
    """MindSpore's GlobalComm: the backend's name, the world group's name, and whether
    ``init`` has run."""
    BACKEND = "gloo"
    WORLD_COMM_GROUP = _C._WORLD_COMM_GROUP
    INITED = False


_groups = None


def _state(api):
    if _groups is None:
        raise RuntimeError(f"For '{api}', the communication is not initialized: call "
                           f"mycel.communication.init() first.")
    return _groups


def _check_str(api, name, value):
    if not isinstance(value, str):
        raise TypeError(f"For '{api}', '{name}' must be a str, but got "
                        f"{type(value).__name__}.")


def _check_int(api, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{api}', '{name}' must be an int, but got "
                        f"{type(value).__name__}.")


def init(backend_name=None, timeout=None):
    """Joins the job: connects the world group through Gloo (default) or MPI.

    backend_name: None (Gloo; MPI when started by mpirun), "gloo" or "mpi"; MindSpore's
    "hccl" and "nccl" mean the default here. timeout: seconds that connecting and every
    collective may wait (default: MYCEL_COMM_TIMEOUT, else 600). Calling init again while
    initialized does nothing.
    """
    global _groups
    if backend_name is not None:
        _check_str("init", "backend_name", backend_name)
    if timeout is not None and (isinstance(timeout, bool) or
                                not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ValueError(f"For 'init', 'timeout' must be a positive number of seconds, "
                         f"but got {timeout!r}.")
    if _groups is not None:
        return
    global _job_entropy
    _groups = _C._ProcessGroups(backend_name or "", float(timeout or 0))
    GlobalComm.BACKEND = _groups.backend
    GlobalComm.INITED = True
    # Rank 0's fresh randomness, on every rank: what unseeded dataset shuffles use in a job,
    # so that the shards of one permutation partition the data (job_entropy).
    _job_entropy = _groups.agree_on(int.from_bytes(os.urandom(7), "little"))


_job_entropy = None


def job_entropy():
    """A random number all ranks of the job share (drawn by rank 0 at init), or None
    outside a job: the dataset engine's entropy when no seed was set, so that every rank
    shuffles alike."""
    return _job_entropy if _groups is not None else None


def release():
    """Leaves the job: waits until every rank has called release (a barrier of the world,
    bounded by the timeout), then closes every group of this process. Safe to call twice."""
    global _groups
    groups, _groups = _groups, None
    GlobalComm.INITED = False
    if groups is not None:
        groups.close()


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in `group`."""
    _check_str("get_rank", "group", group)
    return _state("get_rank").rank(group)


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in `group`."""
    _check_str("get_group_size", "group", group)
    return _state("get_group_size").size(group)


def _agree_on_call(op, dtype, shape, group=GlobalComm.WORLD_COMM_GROUP):
    """Checks once that every rank of `group` makes the collective call `op` on a tensor
    of `dtype` and `shape`, and returns its fingerprint: given as an AllReduce's `agreed`
    attribute, that call skips its per-call check (each is a round trip). Every rank of the
    group calls it; a ValueError naming each rank's call when they differ."""
    return _state(op).agree_on_call(group, op, dtype, [int(d) for d in shape])


def _world_only(api, group):
    _check_str(api, "group", group)
    if group != GlobalComm.WORLD_COMM_GROUP:
        raise ValueError(f"For '{api}', only the world group "
                         f"'{GlobalComm.WORLD_COMM_GROUP}' is supported, but got '{group}'.")


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the world ranks of its node: the ranks its launcher
    (`mycel.run`, one per node) started, or without a launcher the ranks on its machine."""
    _world_only("get_local_rank", group)
    return _state("get_local_rank").local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of world ranks of this process's node (see get_local_rank)."""
    _world_only("get_local_rank_size", group)
    return _state("get_local_rank_size").local_size


def create_group(group, rank_ids):
    """Makes the group `group` of the world ranks `rank_ids` (group rank i is rank_ids[i]).
    Each member calls it; it returns when all members have."""
    _check_str("create_group", "group", group)
    if not isinstance(rank_ids, (list, tuple)):
        raise TypeError(f"For 'create_group', 'rank_ids' must be a list or tuple, but got "
                        f"{type(rank_ids).__name__}.")
    for r in rank_ids:
        _check_int("create_group", "rank_ids[i]", r)
    _state("create_group").create_group(group, list(rank_ids))


def destroy_group(group):
    """Closes the group `group` (not the world group). Every member calls it: it returns
    once all members have."""
    _check_str("destroy_group", "group", group)
    _state("destroy_group").destroy_group(group)


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of rank `group_rank_id` of `group`."""
    _check_str("get_world_rank_from_group_rank", "group", group)
    _check_int("get_world_rank_from_group_rank", "group_rank_id", group_rank_id)
    return _state("get_world_rank_from_group_rank").world_rank(group, group_rank_id)


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of world rank `world_rank_id`."""
    _check_str("get_group_rank_from_world_rank", "group", group)
    _check_int("get_group_rank_from_world_rank", "world_rank_id", world_rank_id)
    return _state("get_group_rank_from_world_rank").group_rank(group, world_rank_id)
