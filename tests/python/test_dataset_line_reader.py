"""mycel.dataset.LineReader (line_reader.py): a text file's lines by number, from 1, against
the file's own lines (Python's splitlines)."""
import pytest

import mycel.dataset as ds


def test_lines_by_number(tmp_path):
    lines = ["first", "", "ünïcode line", "crlf line", "last without newline"]
    path = tmp_path / "f.txt"
    path.write_bytes(("first\n\nünïcode line\ncrlf line\r\nlast without newline").encode())
    reader = ds.LineReader(str(path))
    assert reader.len() == len(reader) == 5
    for i in (5, 1, 3, 2, 4, 1):  # any order, any number of times
        assert reader.readline(i) == lines[i - 1] == reader[i]
    for bad in (0, 6, -1):
        with pytest.raises(ValueError, match=r"interval of \[1, 5\]"):
            reader.readline(bad)
    with pytest.raises(TypeError, match="is not of type"):
        reader.readline("1")
    reader.close()
    with pytest.raises(RuntimeError, match="closed"):
        reader.readline(1)


def test_empty_and_bad_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    reader = ds.LineReader(str(empty))
    assert reader.len() == 0
    with pytest.raises(ValueError, match="interval"):
        reader.readline(1)
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.LineReader(str(tmp_path / "missing.txt"))
    with pytest.raises(RuntimeError, match="is not a regular file"):
        ds.LineReader(str(tmp_path))
    with pytest.raises(TypeError, match="is not string"):
        ds.LineReader(123)


def test_a_line_that_is_not_utf8_names_the_file_and_line(tmp_path):
    # A bare UnicodeDecodeError named neither (found by
    # test_fuzz_python_readers.py::test_line_reader).
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good\n\xff\xfe bad\r\nalso good\n")
    reader = ds.LineReader(str(path))
    assert reader.readline(1) == "good" and reader.readline(3) == "also good"
    with pytest.raises(RuntimeError, match=r"LineReader: line 2 of the file .*bad.txt is not UTF-8"):
        reader.readline(2)
    reader.close()
