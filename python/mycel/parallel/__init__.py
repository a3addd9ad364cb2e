"""mycel.parallel: how a job of several processes trains (MindSpore's auto-parallel context).

``set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)``
makes ``nn.TrainOneStepCell`` (and ``Model``, which uses it) all-reduce the gradients over the
world group (``nn.DistributedGradReducer``, in buckets), broadcast the parameters from rank 0
when ``parameter_broadcast`` is set, and source datasets read this rank's shard. The
collectives underneath are ``mycel.ops.AllReduce`` and friends on the job that
``mycel.communication.init()`` joined.

``Layout`` (``layout.py``) describes how a tensor is split over a device matrix; the C++ layer
``src/parallel`` plans the collectives between two layouts (``_plan_redistribution``), the
foundation of semi-automatic parallelism (``semi_auto_parallel``: ``Primitive.shard``) and of
automatic parallelism (``auto_parallel``: the strategy search of ``search.py`` on the cost
profile ``calibrate.py`` measures).
"""
from mycel.parallel.context import (ParallelMode, set_auto_parallel_context,
                                    get_auto_parallel_context, reset_auto_parallel_context)

from mycel.parallel.layout import Layout, _layout_slice, _plan_redistribution  # noqa: F401
from mycel.parallel.algo import set_algo_parameters, get_algo_parameters, reset_algo_parameters
from mycel.parallel.checkpoint import (build_searched_strategy, merge_sliced_parameter,
                                       load_distributed_checkpoint, transform_checkpoints,
                                       transform_checkpoint_by_rank)

__all__ = ["Layout", "ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "build_searched_strategy", "merge_sliced_parameter",
           "load_distributed_checkpoint", "transform_checkpoints",
           "transform_checkpoint_by_rank", "set_algo_parameters", "get_algo_parameters",
           "reset_algo_parameters"]
