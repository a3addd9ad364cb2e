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
