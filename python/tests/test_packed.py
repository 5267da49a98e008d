"""tmemu.Packed: typed fields laid out at natural alignment in a .b8 array parameter."""

import struct

import numpy as np
import pytest

import tmemu
from conftest import DATA

DUMP = DATA / "dump_packed.ptx"


def dump(packed, src):
    out = np.zeros(5, np.uint64)
    r = tmemu.launch(DUMP, "dump_packed", 1, 1, [out, packed, src])
    assert r.ok, r.report()
    return out[:4].tobytes(), int(out[4])


def test_fields_at_natural_alignment():
    a = np.zeros(64, np.float32)
    b, src = dump(tmemu.Packed([("u32", 256), ("u16", 7), a, ("f32", 1.5), ("i8", -2), (a, 12)]), a)
    # u32 at 0, u16 at 4, pointer aligned up to 8, f32 at 16, i8 at 20, pointer at 24
    assert struct.unpack_from("<IH", b, 0) == (256, 7)
    assert struct.unpack_from("<Q", b, 8)[0] == src
    assert struct.unpack_from("<f", b, 16)[0] == 1.5
    assert struct.unpack_from("<b", b, 20)[0] == -2
    assert struct.unpack_from("<Q", b, 24)[0] == src + 12


def test_int_for_float_field_is_converted():
    b, _ = dump(tmemu.Packed([("f64", 3)]), np.zeros(1, np.float32))
    assert struct.unpack_from("<d", b, 0)[0] == 3.0


@pytest.mark.parametrize(
    "fields, match",
    [
        ([("u32", -1)], r"packed\[0\].*from 0 to 4294967295"),
        ([("i8", 128)], r"from -128 to 127"),
        ([("u32", 1.5)], r"expected an integer"),
        ([("u128", 1)], r"expected a field type"),
        ([("u64", 1)] * 5, r"fit"),  # 40 bytes into 32
        (["nope"], r"expected \(type, number\)"),
    ],
)
def test_bad_fields_raise(fields, match):
    with pytest.raises(tmemu.LaunchError, match=match):
        dump(tmemu.Packed(fields), np.zeros(1, np.float32))
