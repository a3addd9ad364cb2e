"""Federated learning (MindSpore Federated's horizontal FL): a C++ aggregation server with
rounds of FedAvg, a client, a training callback and a simulator of many clients.

- ``FLServer(config).start()`` / ``python -m mycel.federated.server --config fl.yaml``:
  the server (config.py: MindSpore Federated's YAML keys).
- ``FederatedClient(server_address, client_id=...)``: start_fl_job, update_model, get_model.
- ``FederatedLearningCallback(client, data_size)``: Model.train takes part, a round per epoch.
- ``simulate`` / ``simulate_in_processes``: many lightweight clients on one machine.
- ``FedProxLoss``: FedProx's proximal term, on the client (the server side is FedAvg).
- ``encrypt_type`` PW_ENCRYPT (secure aggregation), DP_ENCRYPT (local differential privacy,
  ``mycel.federated.privacy``), and the ``compression:`` section (8-bit downloads, sparse
  8-bit uploads): the server's config; clients follow it.
- ``SemiSupervisedClient``, ``PseudoLabeler``, ``PseudoLabelLoss``: semi-supervised FL,
  clients with unlabeled data train on the global model's confident pseudo-labels
  (``mycel.federated.semi_supervised``, FixMatch's recipe).
- ``mycel.federated.vertical``: vertical federated learning (private set intersection,
  split learning between a leader and a follower).
"""
from mycel.federated.callback import FederatedLearningCallback, load_weights, network_weights
from mycel.federated.client import FederatedClient, RequestRejected, ServerFinished
from mycel.federated.config import load_config
from mycel.federated.fedprox import FedProxLoss
from mycel.federated.semi_supervised import (PseudoLabeler, PseudoLabelLoss,
                                             SemiSupervisedClient)
from mycel.federated.server import FLServer
from mycel.federated.simulation import simulate, simulate_in_processes

__all__ = ["FLServer", "FedProxLoss", "FederatedClient", "FederatedLearningCallback",
           "PseudoLabelLoss", "PseudoLabeler", "RequestRejected", "SemiSupervisedClient",
           "ServerFinished", "load_config", "load_weights", "network_weights",
           "simulate", "simulate_in_processes"]
