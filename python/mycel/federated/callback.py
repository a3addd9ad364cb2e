"""FederatedLearningCallback: ``Model.train`` takes part in federated rounds, one per epoch."""
import numpy as np

from mycel.common.tensor import Tensor
from mycel.federated.client import RequestRejected, ServerFinished
from mycel.train.callback import Callback


def load_weights(network, weights):
    """Sets the parameters of ``network`` named in ``weights`` ({name: ndarray}); a name the
    network lacks, or another shape, is a ValueError."""
    params = network.parameters_dict()
    for name, value in weights.items():
        if name not in params:
            raise ValueError(f"federated: the global model has a parameter '{name}' that the "
                             f"network lacks.")
        p = params[name]
        if tuple(p.shape) != tuple(value.shape):
            raise ValueError(f"federated: parameter '{name}' has shape {tuple(p.shape)}, the "
                             f"global model's is {tuple(value.shape)}.")
        p.set_data(Tensor(np.asarray(value, dtype=np.float32)))


def network_weights(network):
    """{name: float32 ndarray} of the network's parameters (what a client uploads)."""
    return {name: p.asnumpy() for name, p in network.parameters_dict().items()}


class FederatedLearningCallback(Callback):
    """Makes each epoch of ``Model.train`` one federated round: at the epoch's start the
    client joins the round and loads the global model into the network; at its end it
    uploads the trained parameters (weighted by ``data_size``) and loads the new global model.

    Args:
        client (FederatedClient): the connection to the server.
        data_size (int): the number of samples this client trains on per round.
        network (Cell): the network whose parameters take part (default: the Model's).
        proximal (FedProxLoss): for FedProx, the loss wrapper whose anchor is set to each
            round's global model (default None: FedAvg).

    A round that admits no more clients is trained locally without an upload; the next epoch
    starts from the newest global model. Training stops when the server has finished.
    ``rounds`` lists the (iteration, joined) of each epoch.
    """

    def __init__(self, client, data_size, network=None, proximal=None):
        self.client = client
        self.proximal = proximal
        self.data_size = data_size
        self.network = network
        self.rounds = []
        self._joined = False

    def _net(self, run_context):
        return self.network if self.network is not None else run_context.original_args().network

    def on_train_epoch_begin(self, run_context):
        try:
            iteration, weights = self.client.start_fl_job(self.data_size)
            self._joined = True
        except RequestRejected as e:
            if e.status != "rejected":
                raise
            self._joined = False
            iteration, weights = self.client.get_model(iteration=e.iteration - 1)
        except ServerFinished:
            self._joined = False
            run_context.request_stop()
            return
        load_weights(self._net(run_context), weights)
        if self.proximal is not None:
            self.proximal.set_global(weights)
        self.rounds.append((iteration, self._joined))

    def on_train_epoch_end(self, run_context):
        if not self._joined:
            return
        net = self._net(run_context)
        self.client.update_model(network_weights(net), self.data_size)
        _, weights = self.client.get_model()
        load_weights(net, weights)
        self._joined = False
