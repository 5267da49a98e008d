"""tmemu.TensorMap: the 128-byte map lands in the kernel's .b8[128] parameter, built from the
array's shape, and addresses the same device buffer as the array passed as a pointer."""

import numpy as np
import pytest

import tmemu
from conftest import DATA

DUMP = DATA / "dump_map.ptx"


def dump(tm, array):
    out = np.zeros(17, np.uint64)
    r = tmemu.launch(DUMP, "dump_map", 1, 1, [out, tm, array])
    assert r.ok, r.report()
    return out[:16].tobytes(), int(out[16])


def u64(b, off):
    return int.from_bytes(b[off:off + 8], "little")


def test_map_fields_follow_the_array_shape():
    a = np.zeros((64, 32), np.float16)
    b, src = dump(tmemu.TensorMap(a, box=[32, 16], swizzle="128B"), a)
    assert b[0:4] == b"tmTM"
    # element type: tensormap.replace's .elemtype code for .f16 (PTX ISA 9.1 Table 33) is 6
    assert b[6] == 6
    assert b[7] == 2  # rank
    assert b[9] == 3  # swizzle mode 128B
    # The map's global address is the device address the pointer argument received: one buffer.
    assert u64(b, 16) == src and src % 256 == 0
    # dims innermost first (numpy shape reversed), stride of dim 1 in bytes
    assert (u64(b, 24), u64(b, 32)) == (32, 64)
    assert u64(b, 64) == 32 * 2
    assert int.from_bytes(b[96:98], "little") == 32
    assert int.from_bytes(b[98:100], "little") == 16


def test_map_over_an_array_not_otherwise_passed():
    a = np.zeros((8, 16), np.float32)
    other = np.zeros(4, np.float32)
    b, src = dump(tmemu.TensorMap(a, box=[16, 8]), other)
    assert u64(b, 16) != src and u64(b, 16) % 256 == 0
    assert b[9] == 0  # no swizzle


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(box=[32]), "box"),  # rank 2 array, one box size
        (dict(box=[32, 16], swizzle="17B"), "swizzle"),
        (dict(box=[512, 16]), "box"),
        (dict(box=[32, 16], oob_fill="maybe"), "oob_fill"),
    ],
)
def test_bad_tensor_maps_raise(kw, match):
    a = np.zeros((64, 32), np.float16)
    with pytest.raises(tmemu.LaunchError, match=match):
        dump(tmemu.TensorMap(a, **kw), a)


def test_bfloat16_arrays_from_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    a = np.zeros((64, 32), ml_dtypes.bfloat16)
    b, src = dump(tmemu.TensorMap(a, box=[32, 16]), a)
    assert b[6] == 10  # tensormap.replace .elemtype code of .bf16 (PTX ISA 9.1 Table 33)
    assert u64(b, 64) == 32 * 2
