#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target under Corpus/<target>/ (small files, kept in the repository).

Run again after changing how a target reads its bytes: Scripts/stress/fuzz/make-seeds.py. Seeds are only a
starting point; libFuzzer writes what it finds into a scratch corpus, not here.
"""
import os
import sqlite3
import struct
import sys
import tempfile

if len(sys.argv) > 1:
    if sys.argv[1] in ("-h", "--help"):
        print("Usage: Scripts/stress/fuzz/make-seeds.py\n\n" + __doc__.strip())
        sys.exit(0)
    print(f"make-seeds.py: unknown argument '{sys.argv[1]}' (see --help)", file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def chunk(data):
    data = data if isinstance(data, bytes) else data.encode()
    assert len(data) < 256
    return bytes([len(data)]) + data


# FuzzInput.value(): a selector byte (mod 8), then the value's bytes.
def v_null():
    return b"\x00"


def v_int(i):
    return b"\x02" + struct.pack("<q", i)


def v_real(x):
    return b"\x03" + struct.pack("<d", x)


def v_blob(b):
    return b"\x05" + chunk(b)


def v_text(t):
    return b"\x06" + chunk(t)


# value conversions: a selector byte (0 date, 1 decimal, 2 UUID, 3 URL, 4+ a list of values), then text.
for i, text in enumerate(["2026-11-22 14:03:27.512", "2026-02-31T24:00:00Z", "12:30", "-4713-11-24 12:00:00",
                          "9999-12-31 23:59:59.999 +14:59", "2000-01-01 00:00:00.1234567 -05:30 "]):
    write("fuzz-value-conversions", f"date-{i}", b"\x00" + text.encode())
for i, text in enumerate(["-12.5", ".5", "1e-3", "123456789012345678901234567890.12345678", "1.5e128", "0e0"]):
    write("fuzz-value-conversions", f"decimal-{i}", b"\x01" + text.encode())
write("fuzz-value-conversions", "uuid-0", b"\x02" + b"6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
for i, text in enumerate(["https://example.com/a%20b?q=1#f", "mailto:a@example.com", "file:///tmp/x.db"]):
    write("fuzz-value-conversions", f"url-{i}", b"\x03" + text.encode())
write("fuzz-value-conversions", "values-0",
      b"\x04" + v_int(-42) + v_real(0.1) + v_text("2024-01-01") + v_blob(bytes(range(16))) + v_null()
      + v_text("1e5") + v_blob(b"\xff\xfe"))

# RowDecoder: a mode byte, then per column a selector (bit 7: a name chunk follows; else an index into
# the record's column names; bit 6: JSON-looking text) and a value.
COLUMNS = ["id", "small", "unsigned", "real", "single", "text", "bytes", "date", "flag", "uuid", "url",
           "decimal", "kind", "level", "tags", "nested", "map"]


def col(name, value, json=None):
    selector = COLUMNS.index(name)
    if json == "[":
        selector |= 0x60
    elif json == "{":
        selector |= 0x40
    return bytes([selector]) + value


write("fuzz-row-decoder", "record-0", b"\x00" + col("id", v_int(7)) + col("small", v_int(-3))
      + col("text", v_text("hello")) + col("date", v_text("2026-11-22 10:00:00")) + col("flag", v_int(1))
      + col("uuid", v_text("6ba7b810-9dad-11d1-80b4-00c04fd430c8")) + col("url", v_text("https://a.b/c"))
      + col("decimal", v_text("12.50")) + col("kind", v_text("small")) + col("level", v_int(2))
      + col("tags", v_text('"a", "b"]'), json="[") + col("nested", v_text('"name": "n", "values": [1, 2]}'), json="{")
      + col("map", v_text('"x": 1}'), json="{") + col("bytes", v_blob(b"\x00\x01")))
write("fuzz-row-decoder", "record-1", b"\x01" + col("id", v_real(1.0)) + col("unsigned", v_int(-1))
      + col("real", v_text("2.5")) + col("single", v_real(1e300)) + col("date", v_real(1.7e9)))
write("fuzz-row-decoder", "names-0", b"\x02" + b"\x80" + chunk("a b") + v_int(1) + b"\x80" + chunk('q"') + v_text("x")
      + b"\x80" + chunk("") + v_null())


# Changesets: 'T' (changeset) or 'P' (patchset), column count varint, one byte per column (1 = key),
# table name NUL-terminated, then records: operation (18 insert, 9 delete, 23 update), indirect flag,
# values (1 integer BE, 2 real BE, 3 text varint+bytes, 4 blob varint+bytes, 5 NULL, 0 undefined).
def cs_int(i):
    return b"\x01" + struct.pack(">q", i)


def cs_real(x):
    return b"\x02" + struct.pack(">d", x)


def cs_text(t):
    t = t.encode()
    return b"\x03" + bytes([len(t)]) + t


def cs_blob(b):
    return b"\x04" + bytes([len(b)]) + b


CS_NULL = b"\x05"
CS_UNDEF = b"\x00"


def table(kind, name, keys):
    return kind + bytes([len(keys)]) + bytes(keys) + name.encode() + b"\x00"


t1 = table(b"T", "t1", [1, 0, 0])
changeset = (t1 + b"\x12\x00" + cs_int(4) + cs_text("four") + cs_blob(b"\x04")
             + b"\x09\x00" + cs_int(2) + cs_text("two") + CS_NULL
             + b"\x17\x00" + cs_int(1) + cs_text("one") + CS_UNDEF + CS_UNDEF + cs_text("uno") + CS_UNDEF
             + table(b"T", "t2", [1, 1, 0]) + b"\x12\x01" + cs_int(9) + cs_text("z") + cs_real(0.5)
             + table(b"T", "t3", [1, 0]) + b"\x09\x00" + cs_text("k") + cs_real(1.0))
# Header of the fuzz target: flags, resolutions chunk, chunk sizes chunk.
for i, flags in enumerate([0x00, 0x0B, 0x56, 0x7F]):
    write("fuzz-changeset", f"changeset-{i}", bytes([flags]) + chunk(b"\x00\x01\x02") + chunk(b"\x03\x10") + changeset)
conflicting = t1 + b"\x12\x00" + cs_int(1) + cs_text("clash") + CS_NULL + b"\x09\x00" + cs_int(99) + CS_NULL + CS_NULL
write("fuzz-changeset", "conflicts-0", b"\x03" + chunk(b"\x01\x00\x02") + chunk(b"\x05") + conflicting)
patchset = table(b"P", "t1", [1, 0, 0]) + b"\x12\x00" + cs_int(5) + cs_text("five") + CS_NULL + b"\x09\x00" + cs_int(3)
write("fuzz-changeset", "patchset-0", b"\x41" + chunk(b"\x00") + chunk(b"\x02") + patchset)


# Database images: a flags byte (1 add the header, 2 read-only, 4 resizable, 8 write), then the file.
def image(sql, page_size=512):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "seed.db")
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA page_size={page_size}")
        db.executescript(sql)
        db.commit()
        db.execute("VACUUM")
        db.close()
        with open(path, "rb") as f:
            return f.read()


write("fuzz-deserialize", "tables-0", b"\x04" + image(
    "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB); CREATE INDEX tb ON t(b);"
    "INSERT INTO t VALUES (1, 'one', x'01'), (2, 'two', zeroblob(40)), (3, NULL, NULL);"
    "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID; INSERT INTO w VALUES ('x', 1.5), ('y', -2);"))
write("fuzz-deserialize", "overflow-0", b"\x0E" + image(
    "CREATE TABLE big(x); INSERT INTO big VALUES (printf('%.900c', 'a')), (randomblob(700));"))
write("fuzz-deserialize", "view-0", b"\x02" + image(
    "CREATE TABLE t(a); CREATE VIEW v AS SELECT a * 2 FROM t; CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;"
    "INSERT INTO t VALUES (1), (2);"))
write("fuzz-deserialize", "empty-0", b"\x00")

# FTS5: a plan chunk (one action byte per token), a title chunk, a query chunk, then the body.
for i, (plan, title, query, body) in enumerate([
    (b"\x00", "Hello world", "hello", "The quick brown fox jumps over the lazy dog."),
    (b"\x02\x03", "Résumé, naïve", "RÉSUMÉ naïve*", "Ünïcödé text, with commas. And dots."),
    (b"\x01\x04\x45", "end", "end OR x", "a b c end"),
    (b"\x05\x06\x87", "colocated", '"a b" NEAR(c d)', "a b c d e f"),
    (b"\x08\xc7", "throws", "title: x", "x y z"),
]):
    write("fuzz-fts5-tokenizer", f"tokens-{i}", chunk(plan) + chunk(title) + chunk(query) + body.encode())

# CLI output: shape byte (column count mod 5), chunk size byte, column-name chunks, then values row by row.
write("fuzz-cli-output", "rows-0", b"\x03\x40" + chunk("id") + chunk("name") + chunk("photo")
      + v_int(1) + v_text("Ada, \"the\" first\r\n") + v_blob(b"\xff\xd8\xff")
      + v_int(-2) + v_null() + v_real(2.5))
write("fuzz-cli-output", "rows-1", b"\x02\x00" + chunk("a") + chunk("a") + v_real(float("inf")) + v_text("\t\x01\u00e9\u4e2d")
      + v_real(-0.0) + v_text("\U0001F600\u0301"))
write("fuzz-cli-output", "rows-2", b"\x01\xff" + chunk("x\ny") + v_blob(bytes(range(40))) + v_text(""))

# Vector search: an operation count byte (mod 8, plus 1), then operations, each a selector byte (mod 10) and
# its bytes (see Sources/fuzz-vector/main.swift). A vector is a kind byte then its bytes: 1 = a BLOB of a
# count byte of float32 elements, 2 = JSON text of a count byte of 2-byte integers and a closing byte.
def f32_blob(values):
    return b"\x01" + bytes([len(values)]) + b"".join(struct.pack("<f", v) for v in values)


def json_vector(values, closed=True):
    return b"\x02" + bytes([len(values)]) + b"".join(struct.pack("<h", v) for v in values) + (b"\x01" if closed else b"\x00")


def insert_vf(rowid, vector, kind):
    return b"\x02\x00" + b"\x01" + struct.pack("<b", rowid) + vector + v_text(kind) + v_null()


def knn(table, k, vector, filter_bytes=b"\x00"):
    return b"\x04" + bytes([table]) + struct.pack("<h", k) + vector + filter_bytes


write("fuzz-vector", "insert-knn-0", b"\x03" + insert_vf(1, f32_blob([1, 2, 3, 4]), "odd")
      + insert_vf(2, f32_blob([4, 3, 2, 1]), "even") + knn(0, 3, json_vector([1, 2, 3, 4]))
      + knn(0, 2, f32_blob([0, 0, 0, 1]), b"\x01" + v_text("odd")))
write("fuzz-vector", "functions-0", b"\x03" + b"\x00\x00" + json_vector([1, -2, 3])
      + b"\x01\x00" + f32_blob([1, 2]) + f32_blob([3, 4]) + b"\x01\x06" + f32_blob([1, 2, 3]) + b"\x01\x02"
      + b"\x00\x02" + json_vector([127, -128]))
write("fuzz-vector", "bad-blobs-0", b"\x03" + b"\x00\x00\x00" + chunk(b"\x00\x00\x80") + knn(0, 5, b"\x00" + chunk(b"\x01\x02\x03"))
      + knn(1, 1, json_vector([300, -300])) + knn(2, -1, b"\x00" + chunk(b"\xff\xff")))
write("fuzz-vector", "create-0", b"\x01" + b"\x07" + chunk("v float[2] distance_metric=l1, m integer, +aux blob")
      + f32_blob([1, 2]) + f32_blob([2, 1]) + b"\x06" + f32_blob([1, 2, 3, 4]) + b"\x05")
write("fuzz-vector", "swift-types-0", b"\x02" + b"\x06" + f32_blob([1, 2, 3, 4]) + b"\x03"
      + b"\x06" + json_vector([1, 2, 3, 4]) + b"\x06" + b"\x00" + chunk(b"\x01\x02\x03"))
