"""An independent writer and reader of MindSpore's MindRecord format, for the tests only.

Written from the format's description (docs/mindrecord-format.md, after MindSpore's
shard_header / shard_writer / shard_index_generator / shard_column), with nothing of mycel:
Python's struct, json and sqlite3, and a small MessagePack codec of its own (a raw record is
a map of ints, floats and strings). A shard file is an 8-byte little-endian header length and
the JSON header (sorted keys, empty lists as null, as MindSpore's json dumps them), padded to
header_size; then pages of page_size bytes: blob pages (per row a u64 length and the row's
blob) and raw pages (per row a u64 length and its MessagePack map), each row group's raw
records together in one raw page. `<file>.db` is the SQLite index: INDEXES and SHARD_NAME.
"""
import json
import os
import sqlite3
import struct

import numpy as np

ARRAY_TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32,
               "float64": np.float64}


# ---- MessagePack (maps of scalars) -------------------------------------------------------

def pack(obj):
    if isinstance(obj, dict):
        out = bytes([0x80 | len(obj)]) if len(obj) < 16 else b"\xde" + struct.pack(">H", len(obj))
        for k, v in sorted(obj.items()):
            out += pack(k) + pack(v)
        return out
    if isinstance(obj, str):
        b = obj.encode()
        if len(b) < 32:
            return bytes([0xa0 | len(b)]) + b
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(obj, float):
        return b"\xcb" + struct.pack(">d", obj)
    if isinstance(obj, int):
        if 0 <= obj < 128:
            return bytes([obj])
        return b"\xd3" + struct.pack(">q", obj)
    raise TypeError(obj)


def unpack(b):
    def one(i):
        t = b[i]
        if t < 0x80:
            return t, i + 1
        if t >= 0xe0:
            return t - 256, i + 1
        if 0x80 <= t <= 0x8f or t in (0xde, 0xdf):
            if t <= 0x8f:
                n, i = t & 15, i + 1
            elif t == 0xde:
                n, i = struct.unpack(">H", b[i + 1:i + 3])[0], i + 3
            else:
                n, i = struct.unpack(">I", b[i + 1:i + 5])[0], i + 5
            d = {}
            for _ in range(n):
                k, i = one(i)
                d[k], i = one(i)
            return d, i
        if 0xa0 <= t <= 0xbf or t in (0xd9, 0xda, 0xdb):
            if t <= 0xbf:
                n, i = t & 31, i + 1
            else:
                w = {0xd9: 1, 0xda: 2, 0xdb: 4}[t]
                n, i = int.from_bytes(b[i + 1:i + 1 + w], "big"), i + 1 + w
            return b[i:i + n].decode(), i + n
        fmt = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
               0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}[t]
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, b[i + 1:i + 1 + size])[0], i + 1 + size
    value, end = one(0)
    assert end == len(b), "bytes after the MessagePack value"
    return value


# ---- MindSpore's integer arrays: count u32 BE, 2-bit widths, minimal little-endian ints ----

def compress_ints(values):
    values = [int(v) for v in values]
    bitmap = bytearray((len(values) + 3) // 4)
    body = b""
    for i, v in enumerate(values):
        code = next(c for c, bits in enumerate((8, 16, 32, 64))
                    if -(1 << (bits - 1)) <= v < (1 << (bits - 1)))
        bitmap[i // 4] |= code << (2 * (3 - i % 4))
        body += v.to_bytes(1 << code, "little", signed=True)
    return struct.pack(">I", len(values)) + bytes(bitmap) + body


def decompress_ints(b):
    n = struct.unpack(">I", b[:4])[0]
    at = 4 + (n + 3) // 4
    out = []
    for i in range(n):
        code = (b[4 + i // 4] >> (2 * (3 - i % 4))) & 3
        out.append(int.from_bytes(b[at:at + (1 << code)], "little", signed=True))
        at += 1 << code
    assert at == len(b)
    return out


def _blob_fields(schema):
    return sorted(k for k, v in schema.items() if v["type"] == "bytes" or "shape" in v)


def _compresses(schema):
    return any(v["type"] in ("int32", "int64") and "shape" in v for v in schema.values())


def _row_parts(schema, row):
    blobs = _blob_fields(schema)
    compress = _compresses(schema)
    raw = {k: row[k] for k in schema if k not in blobs} or {"id": 0}
    parts = []
    for k in blobs:
        t = schema[k]["type"]
        if t == "bytes":
            parts.append(bytes(row[k]))
        elif compress and t in ("int32", "int64"):
            parts.append(compress_ints(np.asarray(row[k]).reshape(-1)))
        else:
            parts.append(np.asarray(row[k], ARRAY_TYPES[t]).tobytes())
    if not blobs:
        blob = b"\0\0\0\0"
    elif len(blobs) == 1:
        blob = parts[0]
    else:
        blob = b"".join(struct.pack(">Q", len(p)) + p for p in parts)
    return pack(raw), blob


def write_set(path, schema, rows, shard_num=1, header_size=1 << 14, page_size=1 << 15,
              rows_per_group=3, desc="written by the test's own writer", index_fields=None):
    """Writes rows (dicts) as MindSpore would: shard k takes the k-th contiguous run; returns
    the shard paths."""
    if shard_num == 1:
        paths = [path]
    else:
        width = len(str(shard_num - 1))
        paths = [path + str(k).rjust(width, "0") for k in range(shard_num)]
    names = [os.path.basename(p) for p in paths]
    if index_fields is None:
        index_fields = [k for k in sorted(schema) if schema[k]["type"] != "bytes"
                        and "shape" not in schema[k]]
    each, extra = divmod(len(rows), shard_num)
    start = 0
    for k, p in enumerate(paths):
        mine = rows[start:start + each + (k < extra)]
        start += len(mine)
        _write_shard(p, k, names, schema, mine, header_size, page_size, rows_per_group, desc,
                     index_fields)
    return paths


def _write_shard(path, shard_id, names, schema, rows, header_size, page_size, rows_per_group,
                 desc, index_fields):
    groups = [rows[i:i + rows_per_group] for i in range(0, len(rows), rows_per_group)]
    # pages: blob page of group 0, the raw page, then the other groups' blob pages
    blob_ids = [0] + list(range(2, len(groups) + 1)) if groups else []
    pages, data, index = [], {}, []
    raw_bytes, raw_groups = b"", []
    row_id = 0
    for g, group in enumerate(groups):
        blob_bytes = b""
        raw_groups.append({"id": g, "offset": len(raw_bytes)})
        for row in group:
            raw, blob = _row_parts(schema, row)
            entry = {"ROW_ID": row_id, "ROW_GROUP_ID": g, "PAGE_ID_RAW": 1,
                     "PAGE_OFFSET_RAW": len(raw_bytes),
                     "PAGE_OFFSET_RAW_END": len(raw_bytes) + 8 + len(raw),
                     "PAGE_ID_BLOB": blob_ids[g], "PAGE_OFFSET_BLOB": len(blob_bytes),
                     "PAGE_OFFSET_BLOB_END": len(blob_bytes) + 8 + len(blob)}
            index.append((entry, [row[f] for f in index_fields]))
            raw_bytes += struct.pack("<Q", len(raw)) + raw
            blob_bytes += struct.pack("<Q", len(blob)) + blob
            row_id += 1
        assert len(blob_bytes) <= page_size and len(raw_bytes) <= page_size
        data[blob_ids[g]] = blob_bytes
        pages.append({"page_id": blob_ids[g], "shard_id": shard_id, "page_type": "BLOB_DATA",
                      "page_type_id": g, "start_row_id": row_id - len(group),
                      "end_row_id": row_id, "row_group_ids": None, "page_size": len(blob_bytes)})
    if groups:
        data[1] = raw_bytes
        pages.append({"page_id": 1, "shard_id": shard_id, "page_type": "RAW_DATA",
                      "page_type_id": 0, "start_row_id": 0, "end_row_id": 0,
                      "row_group_ids": raw_groups, "page_size": len(raw_bytes)})
    pages.sort(key=lambda p: p["page_id"])
    header = {"header_size": header_size,
              "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
              "page": pages or None, "page_size": page_size, "compression_size": 0,
              "schema": [{"blob_fields": _blob_fields(schema) or None, "desc": desc,
                          "schema": schema, "schema_id": 0}],
              "shard_addresses": names, "shard_id": shard_id, "statistics": None,
              "version": "3.0"}
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for pid, body in sorted(data.items()):
            f.seek(header_size + pid * page_size)
            f.write(body)
        if not data:
            f.truncate(header_size)
    _write_index(path + ".db", os.path.basename(path), schema, index_fields, index)


def _write_index(db_path, shard_name, schema, index_fields, index):
    if os.path.exists(db_path):
        os.remove(db_path)
    sql_type = {"int32": "INTEGER", "int64": "INTEGER", "float32": "NUMERIC",
                "float64": "NUMERIC", "string": "TEXT"}
    cols = ("ROW_ID INT NOT NULL, PAGE_ID_RAW INT NOT NULL, PAGE_OFFSET_RAW INT NOT NULL, "
            "PAGE_OFFSET_RAW_END INT NOT NULL, ROW_GROUP_ID INT NOT NULL, PAGE_ID_BLOB INT NOT "
            "NULL, PAGE_OFFSET_BLOB INT NOT NULL, PAGE_OFFSET_BLOB_END INT NOT NULL")
    for i, f in enumerate(index_fields):
        cols += f",INC_{i} INT, {f}_0 {sql_type[schema[f]['type']]}"
    key = ",".join(["ROW_ID"] + [f"INC_{i}" for i in range(len(index_fields))])
    con = sqlite3.connect(db_path)
    con.execute(f"CREATE TABLE INDEXES({cols}, PRIMARY KEY({key}));")
    con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL);")
    con.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?);", (shard_name,))
    for entry, values in index:
        names = list(entry) + [x for i, f in enumerate(index_fields) for x in (f"INC_{i}",
                                                                              f"{f}_0")]
        vals = list(entry.values()) + [x for v in values for x in (0, v)]
        con.execute(f"INSERT INTO INDEXES ({','.join(names)}) VALUES "
                    f"({','.join('?' * len(vals))});", vals)
    con.commit()
    con.close()


# ---- Reader ------------------------------------------------------------------------------

def read_header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


def read_shard(path):
    """The rows of one shard file, by ROW_ID, as dicts of Python/numpy values."""
    h = read_header(path)
    schema = h["schema"][0]["schema"]
    blobs = _blob_fields(schema)
    assert sorted(h["schema"][0]["blob_fields"] or []) == blobs
    compress = _compresses(schema)
    con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
    entries = con.execute("SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                          "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                          "ORDER BY ROW_ID").fetchall()
    assert con.execute("SELECT NAME FROM SHARD_NAME").fetchall() == [(os.path.basename(path),)]
    con.close()
    rows = []
    with open(path, "rb") as f:
        def part(page, off, end):
            f.seek(h["header_size"] + page * h["page_size"] + off)
            b = f.read(end - off)
            assert struct.unpack("<Q", b[:8])[0] == len(b) - 8
            return b[8:]
        for r, (row_id, rp, ro, re_, bp, bo, be) in enumerate(entries):
            assert row_id == r
            row = unpack(part(rp, ro, re_))
            if not any(k in schema and k not in blobs for k in row):
                row = {}
            blob = part(bp, bo, be)
            if len(blobs) == 1:
                pieces = [blob]
            else:
                pieces, at = [], 0
                for _ in blobs:
                    n = struct.unpack(">Q", blob[at:at + 8])[0]
                    pieces.append(blob[at + 8:at + 8 + n])
                    at += 8 + n
            for k, b in zip(blobs, pieces):
                t = schema[k]["type"]
                if t == "bytes":
                    row[k] = bytes(b)
                elif compress and t in ("int32", "int64"):
                    row[k] = np.array(decompress_ints(b), ARRAY_TYPES[t])
                else:
                    row[k] = np.frombuffer(b, ARRAY_TYPES[t]).copy()
            rows.append(row)
    return rows


def read_set(path):
    """Every shard's rows, shard by shard (the set found from path's header)."""
    h = read_header(path)
    d = os.path.dirname(path)
    return [r for name in h["shard_addresses"] for r in read_shard(os.path.join(d, name))]
