"""A minimal, independent protobuf wire-format codec for tests: it checks the files mycel
writes (checkpoints, MINDIR) without mycel's own encoders or the protobuf library."""


def fields(buf):
    """The top-level fields of one message: [(number, wire type, int or bytes)] for wire types
    0 (varint), 2 (length-delimited) and 5 (fixed32); asserts the buffer is consumed exactly."""
    out, i = [], 0

    def varint():
        nonlocal i
        shift = n = 0
        while True:
            b = buf[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return n

    while i < len(buf):
        key = varint()
        num, wt = key >> 3, key & 7
        if wt == 0:
            out.append((num, wt, varint()))
        elif wt == 2:
            n = varint()
            out.append((num, wt, bytes(buf[i:i + n])))
            i += n
        elif wt == 5:
            out.append((num, wt, int.from_bytes(buf[i:i + 4], "little")))
            i += 4
        else:
            raise AssertionError(f"unexpected wire type {wt}")
    assert i == len(buf)
    return out


def varint(n):
    """The varint encoding of n >= 0."""
    return bytes([n & 0x7F | 0x80 if n >> 7 else n]) + (varint(n >> 7) if n >> 7 else b"")


def length_delimited(field, payload):
    """Field `field` holding payload (wire type 2)."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload
