"""MindSpore's module path ``communication._comm_helper``: GlobalComm (the backend and the
world group's name) lives in mycel.communication.management."""
from mycel.communication.management import GlobalComm  # noqa: F401
