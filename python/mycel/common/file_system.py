"""MindSpore's ``mindspore.common.file_system.FileSystem``: the file operations checkpoint code
uses, as attributes, so that another storage backend can stand in (MindSpore's MindIO). mycel
has only the local file system: ``create``/``open`` are Python's ``open`` with the modes
``create_args`` (append, binary) and ``open_args`` (read, binary)."""
import os


class FileSystem:
    """The local file system: ``fs.open(path, *fs.create_args)`` appends to a file,
    ``fs.open(path, *fs.open_args)`` reads one; ``backend`` is 'basic'."""

    def __init__(self):
        self.create = open
        self.create_args = ("ab",)
        self.open = open
        self.open_args = ("rb",)
        self.backend = "basic"

    @staticmethod
    def exists(path):
        """Whether the path exists."""
        return os.path.exists(path)

    @staticmethod
    def remove(path):
        """Deletes the file."""
        os.remove(path)


def _register_basic_file_system(fs):
    """Points `fs` at the local file system (MindSpore's helper): Python's ``open`` appending
    (``create``) and reading (``open``) binary files. Returns True."""
    fs.create, fs.create_args = open, ("ab",)
    fs.open, fs.open_args = open, ("rb",)
    fs.backend = "basic"
    return True


def _register_mindio_file_system(fs):
    """MindSpore's registration of its MindIO storage backend: mycel has no MindIO support,
    so `fs` is left as it is and this returns False (as MindSpore does where MindIO is not
    installed)."""
    return False
