"""mycel.communication: process groups and collective communication, as MindSpore 2.x's
``mindspore.communication``.

``init()`` joins the job this process belongs to, described by the environment that the
launcher (``python -m mycel.run``) or ``mpirun`` sets: Gloo over TCP by default, Open MPI when
started by ``mpirun`` or named (``init("mpi")``). Without a launcher, ``init()`` makes a
world of one process. ``get_rank``/``get_group_size`` tell this process's place in a group;
``create_group`` makes a sub-group of world ranks (called by its members).
"""
from mycel.communication.management import (GlobalComm, init, release, get_rank,
                                            get_group_size, get_local_rank,
                                            get_local_rank_size, create_group, destroy_group,
                                            get_world_rank_from_group_rank,
                                            get_group_rank_from_world_rank,
                                            HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP)

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP"]
