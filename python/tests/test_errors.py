"""Bad arguments are caught before the run with tmemu.LaunchError; bad PTX raises PtxError with
file:line:col as the CLI prints it."""

import numpy as np
import pytest

import tmemu
from conftest import DATA, REPO

AXPY = REPO / "tests" / "corpus" / "kernels" / "triton" / "axpy.ptx"


def args(**over):
    a = dict(x=np.zeros(16, np.float32), y=np.zeros(16, np.float32), out=np.zeros(16, np.float32))
    a.update(over)
    return [a["x"], a["y"], a["out"], 1.0, 16, None, None]


def launch(arglist, **kw):
    return tmemu.launch(AXPY, "axpy_kernel", kw.pop("grid", 1), kw.pop("block", 32), arglist, **kw)


def test_wrong_argument_count():
    with pytest.raises(tmemu.LaunchError, match=r"expected 7 arguments.*found 6"):
        launch(args()[:-1])


def test_non_contiguous_array():
    with pytest.raises(tmemu.LaunchError, match=r"arg\[2\].*C-contiguous"):
        launch(args(out=np.zeros(32, np.float32)[::2]))


def test_unsupported_dtype():
    with pytest.raises(tmemu.LaunchError, match=r"arg\[0\].*unsupported array dtype complex64"):
        launch(args(x=np.zeros(16, np.complex64)))


def test_big_endian_array():
    with pytest.raises(tmemu.LaunchError, match="little-endian"):
        launch(args(x=np.zeros(16, ">f4")))


def test_scalar_out_of_range():
    a = args()
    a[4] = 2**32
    with pytest.raises(tmemu.LaunchError, match=r"arg\[4\].*does not fit in 32 bits"):
        launch(a)


def test_array_for_scalar_parameter():
    a = args()
    a[4] = np.zeros(4, np.int32)
    with pytest.raises(tmemu.LaunchError, match=r"arg\[4\]"):
        launch(a)


def test_float_for_int_parameter():
    a = args()
    a[4] = 1.5
    with pytest.raises(tmemu.LaunchError, match=r"arg\[4\]"):
        launch(a)


def test_unsupported_argument_type():
    a = args()
    a[3] = "1.0"
    with pytest.raises(tmemu.LaunchError, match=r"arg\[3\].*found str"):
        launch(a)


def test_overlapping_views():
    base = np.zeros(32, np.float32)
    with pytest.raises(tmemu.LaunchError, match="overlaps"):
        launch(args(x=base[:16], y=base[8:24]))


def test_bad_grid_and_block():
    with pytest.raises(tmemu.LaunchError, match="grid"):
        launch(args(), grid=0)
    with pytest.raises(tmemu.LaunchError, match="block"):
        launch(args(), block=(1, 2, 3, 4))
    with pytest.raises(tmemu.LaunchError):
        launch(args(), block=2048)


def test_tensor_map_on_a_pointer_parameter():
    a = args()
    a[0] = tmemu.TensorMap(a[0], box=[16])
    with pytest.raises(tmemu.LaunchError, match=r"arg\[0\].*tensor map"):
        launch(a)


def test_missing_ptx_file():
    with pytest.raises(tmemu.LaunchError, match="cannot read"):
        tmemu.launch("no/such/file.ptx", None, 1, 1, [])


def test_ptx_syntax_error_has_line_and_column():
    text = ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n  add.s32 %r1, , 2;\n  ret;\n}\n"
    with pytest.raises(tmemu.PtxError, match=r"^<ptx>:6:16: error: expected an expression"):
        tmemu.launch(text, None, 1, 1, [])


def test_unmodelled_instruction_is_unsupported():
    text = ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n  bogus.instr %r1;\n  ret;\n}\n"
    with pytest.raises(tmemu.UnsupportedError, match=r"^<ptx>:6:3: unsupported"):
        tmemu.launch(text, None, 1, 1, [])


def test_unknown_kernel_name():
    with pytest.raises(tmemu.PtxError, match="nope"):
        tmemu.launch(AXPY, "nope", 1, 32, args())


def test_nothing_written_back_after_a_launch_error():
    out = np.full(16, 5.0, np.float32)
    a = args(out=out)
    a[4] = -(2**40)
    with pytest.raises(tmemu.LaunchError):
        launch(a)
    np.testing.assert_array_equal(out, 5.0)


def test_exceptions_are_value_errors_and_tmemu_errors():
    assert issubclass(tmemu.LaunchError, ValueError)
    assert issubclass(tmemu.LaunchError, tmemu.TmemuError)
    assert issubclass(tmemu.KernelError, tmemu.TmemuError)


def test_seeds_without_check_and_bad_seeds():
    with pytest.raises(tmemu.LaunchError, match="'seeds': only with check=True"):
        launch(args(), seeds=2)
    with pytest.raises(tmemu.LaunchError, match="'seeds'"):
        launch(args(), check=True, seeds=0)


def test_bad_async_policy():
    with pytest.raises(tmemu.LaunchError, match="'async_policy': expected 'immediate', 'delayed' or 'adversarial', found 'eager'"):
        launch(args(), async_policy="eager")
    with pytest.raises(tmemu.LaunchError, match="'async_policy': check=True chooses"):
        launch(args(), async_policy="delayed", check=True)
