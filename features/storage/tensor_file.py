"""The container of model files: numeric arrays behind a bounded JSON header (safetensors).

A safetensors file is an 8-byte header length, a JSON header giving each array's dtype, shape and
byte offsets, then the raw buffers; its (fuzzed, Rust) reader checks all three before it hands out
a byte, and it holds numbers only. This module bounds the file and its header before anything is
parsed, hands the metadata text to the caller, and serves arrays to a `schema.Reader` by their
header (dtype, shape) before their bytes are read. What the metadata and arrays mean is the
caller's business (`experiments.outputs.model_files`).
"""
from __future__ import annotations

import contextlib
import json
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import safetensors.numpy
from safetensors import safe_open

from .atomic import atomic_write
from .schema import Reader, StateError

# safetensors' dtype names -> numpy (those safetensors.numpy writes; others are refused).
DTYPES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "U16": "uint16", "I16": "int16", "U32": "uint32",
          "I32": "int32", "U64": "uint64", "I64": "int64", "F16": "float16", "F32": "float32", "F64": "float64"}


class TensorFileError(ValueError):
    """A file that is larger than allowed, or has no bounded safetensors header."""


def write(path: Path | str, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, str], *,
          max_bytes: int | None = None) -> Path:
    """Write `arrays` and the text entries `metadata` as one safetensors file, atomically.

    max_bytes: the largest file its reader takes (`read_metadata`'s `max_file_bytes`): a larger one
    is a TensorFileError and nothing is written."""

    # Serialized in memory, then written by the suite's atomic writer: the file gets a new file's
    # permissions, and a full disk or a size limit names the file and leaves nothing behind.
    data = safetensors.numpy.save(dict(arrays), metadata=dict(metadata))
    if max_bytes is not None and len(data) > max_bytes:
        raise TensorFileError(f"{len(data):,} bytes, more than its reader takes ({max_bytes:,})")
    return atomic_write(path, data)


def first_bytes(path: Path, n: int = 9) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(n)


def read_metadata(path: Path, key: str, *, max_file_bytes: int, max_header_bytes: int) -> str | None:
    """The text of metadata entry `key`, or None when the header has no such text.

    The file's size and its header's length are bounded before the header is parsed; a file too
    large, or without a safetensors header of at most `max_header_bytes`, is a TensorFileError.
    """
    size = path.stat().st_size
    if size > max_file_bytes:
        raise TensorFileError(f"{size:,} bytes, more than allowed ({max_file_bytes:,})")
    start = first_bytes(path)
    (length,) = struct.unpack("<Q", start[:8]) if len(start) == 9 else (0,)
    if start[8:9] != b"{" or not 2 <= length <= min(max_header_bytes, size - 8):
        raise TensorFileError(f"no safetensors header of at most {max_header_bytes:,} bytes")
    with open(path, "rb") as handle:
        handle.seek(8)
        header = json.loads(handle.read(length))
    text = header.get("__metadata__", {}).get(key) if isinstance(header, dict) else None
    return text if isinstance(text, str) else None


class TensorReader(Reader):
    """Arrays from an open safetensors file: dtype and shape from its header, bytes only on `read`."""

    def __init__(self, handle):
        super().__init__({})
        self.handle, self.names = handle, set(handle.keys())

    def header(self, path):
        if path not in self.names:
            raise StateError(f"{path}: missing array")
        view = self.handle.get_slice(path)
        dtype = DTYPES.get(view.get_dtype())
        if dtype is None:
            raise StateError(f"{path}: {view.get_dtype()} values are not a numeric dtype this suite reads")
        return np.dtype(dtype), tuple(view.get_shape())

    def read(self, path):
        return self.handle.get_tensor(path)


@contextlib.contextmanager
def reading(path: Path) -> Iterator[TensorReader]:
    """A reader of the file's arrays; on leaving, an array that no field asked for is refused."""

    with safe_open(str(path), framework="np") as handle:
        reader = TensorReader(handle)
        yield reader
        stray = reader.names - reader.used
    if stray:
        raise StateError(f"it holds arrays that no part of the model declares ({sorted(stray)[0]!r:.80})")
