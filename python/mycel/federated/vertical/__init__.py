"""Vertical federated learning (MindSpore Federated's ``vfl``): two parties hold different
features of overlapping users. They find their common users by private set intersection
(``RunPSI``, ECDH over Ristretto255 through libsodium), then train a split network in which
only the activations at the cut and their gradients cross (``SplitLeader``,
``SplitFollower``), over a ``VerticalFederatedCommunicator`` each. With keys from ``generate_party_keys`` the
parties authenticate every message (crypto_kx session keys, crypto_auth tags)."""
from mycel.federated.vertical.communicator import (RunPSI, ServerConfig,
                                                   VerticalFederatedCommunicator,
                                                   generate_party_keys)
from mycel.federated.vertical.split import SplitFollower, SplitLeader

__all__ = ["RunPSI", "ServerConfig", "SplitFollower", "SplitLeader",
           "VerticalFederatedCommunicator", "generate_party_keys"]
