"""DatasetHelper (MindSpore's ``mindspore.train.dataset_helper``): the batches a training loop
written by hand reads from a dataset, ``for inputs in DatasetHelper(ds, ...): net(*inputs)``.

Without sink mode it iterates the dataset's tuples, epoch after epoch (`epoch_num`), as
Model.train does. MindSpore's sink mode feeds a device queue that a sinking graph reads;
mycel's sink runs the step in C++ over the data engine's pipeline (``mycel.data_sink``,
``Model.train(dataset_sink_mode=True)``), so a DatasetHelper in sink mode gives the same
batches in steps of `sink_size` per epoch (the dataset's size with -1), which is what a
hand-written loop over it sees in MindSpore too, one call per sink step.
"""


class DatasetHelper:
    """DatasetHelper(dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1).

    Args:
        dataset: a mycel.dataset Dataset (or an object with ``create_tuple_iterator``).
        dataset_sink_mode (bool): whether the steps sink (module docstring).
        sink_size (int): steps per epoch in sink mode; -1 for the dataset's size.
        epoch_num (int): the epochs the iteration runs over the dataset.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"For 'DatasetHelper', 'dataset_sink_mode' must be bool, but got "
                            f"{type(dataset_sink_mode).__name__}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int):
            raise TypeError(f"For 'DatasetHelper', 'sink_size' must be an int, but got "
                            f"{type(sink_size).__name__}.")
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"For 'DatasetHelper', 'sink_size' must be -1 or positive, but got "
                             f"{sink_size}.")
        if isinstance(epoch_num, bool) or not isinstance(epoch_num, int) or epoch_num <= 0:
            raise ValueError(f"For 'DatasetHelper', 'epoch_num' must be a positive int, but got "
                             f"{epoch_num!r}.")
        if not hasattr(dataset, "create_tuple_iterator"):
            raise TypeError(f"For 'DatasetHelper', the dataset must have "
                            f"create_tuple_iterator(), but got {type(dataset).__name__}.")
        self._dataset = dataset
        self._sink = dataset_sink_mode
        self._sink_size = sink_size
        self._epoch_num = epoch_num
        self._iter = None

    def sink_size(self):
        """Steps per epoch: sink_size, or the dataset's size (-1 sink_size, or no sink)."""
        if self._sink and self._sink_size != -1:
            return self._sink_size
        size = getattr(self._dataset, "get_dataset_size", None)
        return size() if size else -1

    def types_shapes(self):
        """The dataset's output types and shapes."""
        return self._dataset.output_types(), self._dataset.output_shapes()

    def __len__(self):
        return self.sink_size()

    def __iter__(self):
        if self._iter is None:
            self._iter = self._dataset.create_tuple_iterator(num_epochs=self._epoch_num,
                                                             do_copy=True)
        steps = self.sink_size() if self._sink else -1
        return _Epoch(self._iter, steps)

    def stop_send(self):
        """Stops a sink's feeding, where the dataset has one."""
        fn = getattr(self._dataset, "stop_send", None)
        if fn:
            fn()

    def continue_send(self):
        """Resumes a sink's feeding, where the dataset has one."""
        fn = getattr(self._dataset, "continue_send", None)
        if fn:
            fn()

    def release(self):
        """Releases the dataset's resources, where it has any to release."""
        fn = getattr(self._dataset, "release", None)
        if fn:
            fn()


class _Epoch:
    """One epoch of a DatasetHelper: the iterator's tuples, at most `steps` of them (-1: to
    the end of the epoch)."""

    def __init__(self, it, steps):
        self._it, self._left = it, steps

    def __iter__(self):
        return self

    def __next__(self):
        if self._left == 0:
            raise StopIteration
        item = next(self._it)
        if self._left > 0:
            self._left -= 1
        return item if isinstance(item, tuple) else tuple(item)


def connect_network_with_dataset(network, dataset_helper):
    """The network a hand-written loop ``for inputs in dataset_helper: net(*inputs)`` calls.

    In MindSpore, sink mode hands the loop placeholder inputs and the returned network reads
    each batch from the device queue. mycel's DatasetHelper gives the loop the real batches
    in both modes (module docstring), so the network itself is that network: it is returned
    after the argument checks."""
    from mycel.nn.cell import Cell
    if not isinstance(network, Cell):
        raise TypeError(f"For 'connect_network_with_dataset', 'network' must be a Cell, but "
                        f"got {type(network).__name__}.")
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', 'dataset_helper' must be a "
                        f"DatasetHelper, but got {type(dataset_helper).__name__}.")
    return network
