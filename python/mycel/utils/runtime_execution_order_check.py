"""Checking that the ranks of a distributed job issue their collectives in compatible orders
(MindSpore's ``mindspore.utils.runtime_execution_order_check``).

Collectives block until every member of the group has issued the matching call; two ranks
that issue two collectives in opposite orders wait for each other forever. The tool finds such
orders after the fact, from the files each rank writes:

1. Record: ``comm_exec_order_check("start")`` before the steps to check and
   ``comm_exec_order_check("end")`` after them, on every rank. mycel's communication layer
   (src/comm/exec_order.h) then writes, per rank,
   ``<save_graphs_path or .>/rank_<r>/execute_order/comm_execute_order.csv``: one row per
   collective or Send/Receive in the order it ran, with MindSpore's columns (``index, group,
   comm_rank, primitive, src_rank, dest_rank, root_rank, input_shape, input_type,
   output_shape, output_type, input_size, output_size``).
2. Check: ``runtime_execution_order_check(folder)`` reads every ``rank_x`` folder of `folder`
   (or the ``rank_x`` folders given as a list), names each row by what must match it on the
   other ranks (``modify_execute_orders``: the primitive, group and member ranks, for a
   Send/Receive the pair of ranks and the shape, then the how-many-th such call it is), checks
   that each call's members all issued it (``parse_and_validate``) and looks for a cycle in the
   graph whose edges are each rank's consecutive calls (``detect_cycle_in_graph``): a cycle
   is an order that can deadlock. Problems are logged (``mycel.log``) as MindSpore does, and
   returned as an ``OrderCheckReport``.
"""
import collections
import csv
import os
import re

from mycel import log as logger
from mycel import _c_expression

__all__ = ["comm_exec_order_check", "ExecuteOrder", "RankFolderParser", "modify_execute_orders",
           "parse_and_validate", "detect_cycle_in_graph", "runtime_execution_order_check",
           "OrderCheckReport"]

_SEND = ("Send", "DistCommIsend", "InnerCommIsend")
_RECEIVE = ("Receive", "DistCommIrecv", "InnerCommIrecv")

# Whether the recorder that comm_exec_order_check last drove is collecting, kept per checker
# instance: a new instance (a fresh backend) starts not collecting.
_state = {"checker": None, "collecting": False}


def comm_exec_order_check(action):
    """``"start"``: begin recording this process's collectives; ``"end"``: stop and write this
    rank's ``comm_execute_order.csv`` (module docstring). A second "start", or an "end"
    without a start, is logged as an error and ignored; another action is a ValueError."""
    if not isinstance(action, str):
        raise TypeError(f"For 'comm_exec_order_check', the 'action' must be a str, but got "
                        f"{type(action).__name__}.")
    if action not in ("start", "end"):
        raise ValueError(f"For 'comm_exec_order_check', the 'action' must be 'start' or 'end', "
                         f"but got {action!r}.")
    checker = _c_expression.CommExecOrderChecker.get_instance()
    if _state["checker"] is not checker:
        _state["checker"], _state["collecting"] = checker, False
    if action == "start":
        if _state["collecting"]:
            logger.error("The 'start' action cannot be called twice.")
            return
        _state["collecting"] = True
        checker.start_collect_exec_order()
        return
    if not _state["collecting"]:
        logger.error("The 'end' action cannot be called before the 'start' action.")
        return
    _state["collecting"] = False
    checker.stop_collect_exec_order()


class ExecuteOrder:
    """One row of a ``comm_execute_order.csv``. `comm_rank` is the group's world ranks
    separated by spaces (kept as a list); the other ranks are strings, "" for none."""

    def __init__(self, index, group, comm_rank, primitive, src_rank="", dest_rank="",
                 root_rank="", input_shape="", output_shape=""):
        self.index = index
        self.group = group
        self.comm_rank = str(comm_rank).split()
        self.primitive = primitive
        self.src_rank = src_rank
        self.dest_rank = dest_rank
        self.root_rank = root_rank
        self.input_shape = input_shape
        self.output_shape = output_shape

    def generate_base_key(self, rank):
        """The call's name as every rank taking part must issue it, seen from `rank`: a
        Send from rank a to b and b's Receive from a share the name
        ``Send_Receive_<group>_(a)->(b)_<shape>``; a collective is
        ``<primitive>_<group>_(<member ranks>)``, with ``commRank:``/``srcRank:``/
        ``destRank:``/``rootRank:`` parts when it has a root or peer."""
        members = ",".join(self.comm_rank)
        if not (self.src_rank or self.dest_rank or self.root_rank):
            return f"{self.primitive}_{self.group}_({members})"
        if self.primitive in _SEND:
            return f"Send_Receive_{self.group}_({rank})->({self.dest_rank})_{self.input_shape}"
        if self.primitive in _RECEIVE:
            return f"Send_Receive_{self.group}_({self.src_rank})->({rank})_{self.output_shape}"
        parts = [f"{self.primitive}_{self.group}", f"commRank:({members})"]
        for label, value in (("srcRank", self.src_rank), ("destRank", self.dest_rank),
                             ("rootRank", self.root_rank)):
            if value:
                parts.append(f"{label}:({value})")
        return "_".join(parts)

    def generate_key(self, rank, count):
        """The base key of the `count`-th such call on `rank`: ``<base>_<count>th``."""
        return f"{self.generate_base_key(rank)}_{count}th"

    def __repr__(self):
        return f"ExecuteOrder({self.index}, {self.primitive}, group={self.group})"


def _rank_of(folder):
    return os.path.basename(os.path.normpath(folder))[len("rank_"):]


class RankFolderParser:
    """Reads the ``rank_x/execute_order/comm_execute_order.csv`` files under `folders` (a
    path or a list of paths, each a ``rank_x`` folder or a folder holding some). A path that
    does not exist, holds no ``rank_x`` folder, or names a rank twice is a ValueError."""

    REQUIRED_COLUMNS = ["index", "group", "comm_rank", "primitive", "src_rank", "dest_rank",
                        "root_rank", "input_shape", "input_type", "output_shape", "output_type",
                        "input_size", "output_size"]

    def __init__(self, folders):
        self.folders = [folders] if isinstance(folders, str) else list(folders)
        self.result_map = {}
        self._check_paths()

    def _rank_folders(self, path):
        """The rank_x folders `path` stands for (itself, or those it holds)."""
        if os.path.basename(os.path.normpath(path)).startswith("rank_"):
            return [path]
        return [os.path.join(path, d) for d in sorted(os.listdir(path))
                if d.startswith("rank_") and os.path.isdir(os.path.join(path, d))]

    def _check_paths(self):
        seen = set()
        for path in self.folders:
            if not isinstance(path, str):
                raise TypeError(f"RankFolderParser: a folder must be a str, but got "
                                f"{type(path).__name__}.")
            if not os.path.exists(path):
                raise ValueError(f"Path does not exist: {path}. Give a rank_x folder or a "
                                 f"folder holding rank_x folders.")
            if not os.path.isdir(path):
                raise ValueError(f"Invalid path: {path} is not a folder.")
            ranks = self._rank_folders(path)
            if not ranks:
                raise ValueError(f"No rank_x folders found in {path}: it must hold at least one "
                                 f"folder named rank_x, x the rank.")
            for r in ranks:
                name = os.path.basename(os.path.normpath(r))
                if name in seen:
                    raise ValueError(f"Duplicate rank folder detected: {name} (in {path}); "
                                     f"each rank_x folder may be given once.")
                seen.add(name)

    def parse(self):
        """{rank id: [ExecuteOrder, ...]} of the ranks whose file could be read."""
        for path in self.folders:
            for folder in self._rank_folders(path):
                rank = _rank_of(folder)
                _, orders = self.parse_rank_folder(os.path.join(folder, "execute_order"), rank)
                if orders is not None:
                    self.result_map[rank] = orders
        return self.result_map

    def parse_rank_folder(self, rank_folder_path, rank_id):
        """(rank_id, [ExecuteOrder, ...]) from `rank_folder_path`/comm_execute_order.csv, or
        (rank_id, None) with an error logged when it is missing or its header is not
        ``REQUIRED_COLUMNS``."""
        path = os.path.join(rank_folder_path, "comm_execute_order.csv")
        try:
            with open(path, "r", encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                if reader.fieldnames != self.REQUIRED_COLUMNS:
                    logger.error(f"Invalid header in {path}: expected the columns "
                                 f"{self.REQUIRED_COLUMNS}, got {reader.fieldnames}. Skipping "
                                 f"rank {rank_id}.")
                    return rank_id, None
                orders = [ExecuteOrder(row["index"], row["group"], row["comm_rank"],
                                       row["primitive"], row["src_rank"], row["dest_rank"],
                                       row["root_rank"], row["input_shape"], row["output_shape"])
                          for row in reader]
        except FileNotFoundError:
            logger.error(f"No comm_execute_order.csv in {rank_folder_path}: skipping rank "
                         f"{rank_id}.")
            return rank_id, None
        except (OSError, csv.Error, UnicodeDecodeError) as e:
            logger.error(f"Cannot read {path}: {e}. Skipping rank {rank_id}.")
            return rank_id, None
        return rank_id, orders


def modify_execute_orders(execute_orders_map):
    """{rank: [key, ...]}: each rank's calls named by ``ExecuteOrder.generate_key``, counting
    the calls of the same base key on that rank (``..._1th``, ``..._2th``). None counts as no
    calls."""
    result = {}
    for rank, orders in execute_orders_map.items():
        seen = collections.Counter()
        keys = []
        for order in orders or []:
            base = order.generate_base_key(rank)
            seen[base] += 1
            keys.append(order.generate_key(rank, seen[base]))
        result[rank] = keys
    return result


def _ranks_named(key):
    """The ranks a key names: those in its first two parenthesised groups."""
    groups = re.findall(r"\((.*?)\)", key)[:2]
    return {item.strip() for g in groups for item in g.split(",") if item.strip()}


def parse_and_validate(data, all_rank=True):
    """Checks that every call a rank issued was issued by all the ranks its key names.
    With all_rank, a named rank without a file is a problem too; without, only the ranks
    given are compared. Each problem is logged as an error; returns the list of them."""
    problems = []

    def report(msg):
        problems.append(msg)
        logger.error(msg)

    if not isinstance(data, dict):
        report("The execution orders must be a dict of rank -> list of str.")
        return problems
    valid = {k: set(v) for k, v in data.items()
             if isinstance(v, list) and all(isinstance(x, str) for x in v)}
    for rank, keys in data.items():
        if rank not in valid:
            report(f"Values for key '{rank}' must be a list of strings.")
            continue
        for key in keys:
            named = _ranks_named(key)
            if all_rank:
                missing = named - valid.keys()
                if missing:
                    report(f"The following keys are missing for value '{key}': "
                           f"{sorted(missing)}")
                    continue
            for other in sorted(named & valid.keys()):
                if key not in valid[other]:
                    report(f"Key '{other}' is missing the value '{key}'.")
    return problems


def detect_cycle_in_graph(ranks_map):
    """(cycle, edges) of the first cycle found in the graph whose edges are each rank's
    consecutive calls, searched depth first from the calls in the order they first appear:
    cycle is the calls around it with the first repeated at the end, edges
    ``"<rank> <a> -> <b>"`` the rank whose order gave each step. (None, None) when there is
    no cycle."""
    succ = collections.OrderedDict()
    edge_rank = {}
    for rank, nodes in ranks_map.items():
        for a, b in zip(nodes, nodes[1:]):
            succ.setdefault(a, []).append(b)
            edge_rank[(a, b)] = rank
    done = set()
    for root in list(succ):
        if root in done:
            continue
        path, on_path = [root], {root: 0}
        done.add(root)
        iters = [iter(succ.get(root, ()))]
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                iters.pop()
                del on_path[path.pop()]
                continue
            if nxt in on_path:
                cycle = path[on_path[nxt]:] + [nxt]
                return cycle, [f"{edge_rank[(a, b)]} {a} -> {b}"
                               for a, b in zip(cycle, cycle[1:])]
            if nxt in done:
                continue
            done.add(nxt)
            on_path[nxt] = len(path)
            path.append(nxt)
            iters.append(iter(succ.get(nxt, ())))
    return None, None


OrderCheckReport = collections.namedtuple("OrderCheckReport",
                                          ["ok", "problems", "cycle_path", "cycle_ranks"])


def runtime_execution_order_check(folders_, all_rank=None):
    """Checks the ranks' recorded collective orders (module docstring). `folders_`: a folder
    holding rank_x folders, a rank_x folder, or a list of either. all_rank (default: True for
    one path, False for several): every rank named by a call must have a file. Logs what it
    finds as MindSpore's tool does and returns an OrderCheckReport(ok, problems, cycle_path,
    cycle_ranks); ok is False when a rank's file is missing or empty, a call is not issued
    by all its ranks, or the orders form a cycle."""
    if all_rank is None:
        all_rank = isinstance(folders_, str) or (isinstance(folders_, (list, tuple))
                                                 and len(folders_) == 1)
    if not folders_:
        msg = "Invalid input: folders_ must be a non-empty str or a list of str."
        logger.error(msg)
        return OrderCheckReport(False, [msg], None, None)
    orders = RankFolderParser(folders_).parse()
    if not orders:
        msg = "No valid rank data found. Execution order check aborted."
        logger.error(msg)
        return OrderCheckReport(False, [msg], None, None)
    for rank, rows in orders.items():
        if not rows:
            msg = f"Rank {rank} has no valid execution orders. Please check the csv file."
            logger.error(msg)
            return OrderCheckReport(False, [msg], None, None)
    keys = modify_execute_orders(orders)
    problems = parse_and_validate(keys, all_rank)
    cycle, edges = detect_cycle_in_graph(keys)
    if cycle:
        logger.error("Cycle detected:")
        logger.error(" -> ".join(cycle))
        logger.error("Involving ranks:")
        for e in edges:
            logger.error(e)
        problems.append("cycle: " + " -> ".join(cycle))
    else:
        logger.warning("Cycle Check success. There is no cycle in the graph.")
    return OrderCheckReport(not problems, problems, cycle, edges)
