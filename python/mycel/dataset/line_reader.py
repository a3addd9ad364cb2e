"""LineReader (MindSpore's ``mindspore.dataset.LineReader``): random access to the lines of a
text file by line number. The file is scanned once when opened for the byte offset of each
line; ``readline(n)`` (and ``reader[n]``) seeks to line n (counted from 1) and returns it
decoded as UTF-8 without its line ending ("\\n" or "\\r\\n"). The file stays open until
``close()`` (or the reader is collected)."""
import os

from mycel.dataset._validate import _ms_type

__all__ = ["LineReader"]


class LineReader:
    """LineReader(filename): the lines of a text file by number (module docstring).

    Raises TypeError when filename is not a str, RuntimeError when the file does not exist
    or is not a regular file."""

    def __init__(self, filename):
        if not isinstance(filename, str):
            raise TypeError(f"LineReader: the filename {filename!r} is not string.")
        real = os.path.realpath(filename)
        if not os.path.exists(real):
            raise RuntimeError(f"LineReader: the file {filename} does not exist.")
        if not os.path.isfile(real):
            raise RuntimeError(f"LineReader: the file {filename} is not a regular file.")
        self.filename = filename
        self._file = open(real, "rb")  # pylint: disable=consider-using-with
        self._offsets = []
        pos = 0
        for line in self._file:
            self._offsets.append(pos)
            pos += len(line)

    def len(self):
        """The number of lines."""
        return len(self._offsets)

    def __len__(self):
        return len(self._offsets)

    def readline(self, line):
        """Line number `line` (from 1) without its line ending; TypeError for a non-int,
        ValueError outside [1, len()], RuntimeError for a line that is not UTF-8."""
        if isinstance(line, bool) or not isinstance(line, int):
            raise TypeError(f"LineReader.readline: {_ms_type('line', line, int)}")
        if not 1 <= line <= len(self._offsets):
            raise ValueError(f"LineReader.readline: Input line is not within the required "
                             f"interval of [1, {len(self._offsets)}], but got {line}.")
        if self._file is None:
            raise RuntimeError(f"LineReader: the file {self.filename} is closed.")
        self._file.seek(self._offsets[line - 1])
        text = self._file.readline()
        if text.endswith(b"\n"):
            text = text[:-2] if text.endswith(b"\r\n") else text[:-1]
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RuntimeError(f"LineReader: line {line} of the file {self.filename} is not "
                               f"UTF-8 ({e.reason} at byte {e.start}).") from None

    def __getitem__(self, line):
        return self.readline(line)

    def close(self):
        """Closes the file (readline then raises)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        if getattr(self, "_file", None) is not None:
            self._file.close()
