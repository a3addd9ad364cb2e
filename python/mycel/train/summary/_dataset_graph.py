"""A dataset pipeline as the DatasetGraph lineage message (lineage.proto), for
SummaryCollector's collect_dataset_graph: each node's class (op_type, op_module) and its
simple public attributes (str, bool, int, float, lists of str) in the typed maps of its
OperationParameter; a map's operations and a source's sampler as Operations; the nodes it
reads as children. A description for MindInsight's lineage pages, not a way to rebuild the
pipeline."""

_MAX_NODES = 10000
_INT32 = (-2 ** 31, 2 ** 31 - 1)


def _fill_params(params, obj):
    params.mapStr['op_type'] = type(obj).__name__
    params.mapStr['op_module'] = type(obj).__module__
    for key, value in sorted(vars(obj).items()):
        if key.startswith('_') or key in ('children', 'operations', 'sampler', 'parent'):
            continue
        if isinstance(value, bool):
            params.mapBool[key] = value
        elif isinstance(value, int) and _INT32[0] <= value <= _INT32[1]:
            params.mapInt[key] = value
        elif isinstance(value, float):
            params.mapDouble[key] = value
        elif isinstance(value, str):
            params.mapStr[key] = value
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str)
                                                                 for v in value):
            params.mapStrList[key].strValue.extend(value)


def dataset_graph_message(dataset):
    """The DatasetGraph of the pipeline ending at `dataset`."""
    from mycel.train import lineage_pb2
    root = lineage_pb2.DatasetGraph()
    todo, seen = [(dataset, root)], set()
    while todo and len(seen) < _MAX_NODES:
        node, msg = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        _fill_params(msg.parameter, node)
        for op in getattr(node, 'operations', None) or []:
            operation = msg.operations.add()
            if hasattr(op, '__dict__'):
                _fill_params(operation.operationParam, op)
            else:
                operation.operationParam.mapStr['op_type'] = getattr(op, '__name__',
                                                                     type(op).__name__)
        sampler = getattr(node, 'sampler', None)
        if sampler is not None and hasattr(sampler, '__dict__'):
            _fill_params(msg.sampler.operationParam, sampler)
        for child in getattr(node, 'children', None) or []:
            todo.append((child, msg.children.add()))
    return root
