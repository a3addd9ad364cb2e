"""mycel.communication: process groups and collective communication, as MindSpore 2.x's
``mindspore.communication``.

``init()`` joins the job this process belongs to, described by the environment that the
launcher (``python -m mycel.run``) or ``mpirun`` sets: Gloo over TCP by default, Open MPI when
started by ``mpirun`` or named (``init("mpi")``). Without a launcher, ``init()`` makes a
world of one process. ``get_rank``/``get_group_size`` tell this process's place in a group;
``create_group`` makes a sub-group of world ranks (called by its members). ``comm_func`` holds
the functional collectives (``all_reduce``, ..., ``isend``/``irecv``), with ``async_op``.
"""
from mycel.communication.management import (GlobalComm, init, release, get_rank,
                                            get_group_size, get_local_rank,
                                            get_local_rank_size, create_group, destroy_group,
                                            get_world_rank_from_group_rank,
                                            get_group_rank_from_world_rank,
                                            HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP)

__all__ = ["comm_func", "GlobalComm", "init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP"]


def __getattr__(name):
    # comm_func is built on the collective primitives (mycel.ops), which themselves read this
    # package's state: it loads on first use (mycel.communication.comm_func, or
    # `from mycel.communication import comm_func`), after both packages.
    if name == "comm_func":
        import importlib
        return importlib.import_module("mycel.communication.comm_func")
    raise AttributeError(f"module 'mycel.communication' has no attribute '{name}'")
