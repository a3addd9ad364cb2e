"""The federated aggregation server: ``FLServer(config).start()`` in Python, or
``python -m mycel.federated.server --config fl.yaml`` (config.py gives the YAML layout).

The server itself is C++ (src/federated/server.h): rounds of FedAvg, registration tokens,
round windows, atomic round checkpoints, and the checks that refuse bad requests.
"""
import argparse
import os
import signal
import sys
import threading

from mycel import _mycel as _C
from mycel.federated.config import load_config


class FLServer:
    """A federated-learning server (MindSpore Federated's scheduler and server in one).

    Args:
        config: a YAML file path or a dict of the same layout (mycel.federated.config).
        log_to_stderr (bool): print each event (registrations, refusals with their reasons,
            round closes) to stderr. Default True.

    ``start()`` serves from background threads; ``stop()`` ends it. A server started on a
    ``checkpoint_dir`` holding a round checkpoint resumes after that round.
    """

    def __init__(self, config, log_to_stderr=True):
        self._config = load_config(config)
        self._config["log_to_stderr"] = bool(log_to_stderr)
        self._server = None

    def start(self):
        """Starts serving (a RuntimeError when the port is in use); returns self. Creates
        checkpoint_dir when it does not exist."""
        if self._server is None:
            os.makedirs(self._config["checkpoint_dir"], exist_ok=True)
            self._server = _C._federated._Server(self._config)
        return self

    def stop(self):
        """Stops serving; waits for the server's threads (bounded: requests time out)."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _live(self):
        if self._server is None:
            raise RuntimeError("FLServer: the server is not running (call start()).")
        return self._server

    @property
    def address(self):
        """'HOST:PORT' the server listens on (the chosen port when the config gave 0)."""
        return f"{self._config['host']}:{self._live().port}"

    @property
    def iteration(self):
        """The round now open."""
        return self._live().iteration

    @property
    def completed(self):
        """The last closed round (0 before the first closes)."""
        return self._live().completed

    @property
    def finished(self):
        """True once fl_iteration_num rounds have closed."""
        return self._live().finished

    def global_model(self):
        """The global model, {name: float32 ndarray}."""
        return self._live().global_model()

    def events(self):
        """The server's log lines (the latest 10,000): refusals with reasons, rounds."""
        return self._live().events()


def main(argv=None):
    """``python -m mycel.federated.server --config fl.yaml``: serves until SIGINT or SIGTERM
    (after the last round it still answers getModel with the final model)."""
    parser = argparse.ArgumentParser(prog="python -m mycel.federated.server",
                                     description="mycel's federated-learning server")
    parser.add_argument("--config", required=True, help="the YAML configuration")
    args = parser.parse_args(argv)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    server = FLServer(args.config).start()
    print(f"mycel.federated: serving on {server.address}", file=sys.stderr, flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
