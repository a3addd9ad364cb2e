"""MindSpore's ``mindspore.utils``: the collective execution-order tools
(``comm_exec_order_check`` records each rank's collectives, ``runtime_execution_order_check``
checks the ranks' orders for deadlocks; ``mycel.utils.runtime_execution_order_check``)."""
from mycel.utils.runtime_execution_order_check import (comm_exec_order_check,
                                                       runtime_execution_order_check)

__all__ = ["comm_exec_order_check", "runtime_execution_order_check"]
