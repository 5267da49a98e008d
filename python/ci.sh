#!/usr/bin/env bash
# Builds the tmemu Python package from source the way a user would (`pip install ./python`,
# maturin as the PEP 517 backend) into a fresh venv, and runs python/tests.
#
# Needs: Rust (cargo), Python >= 3.9 with venv, PyPI. The Triton tests (python/tests/
# test_triton.py) need triton==3.9.0: installed here unless TMEMU_PY_TRITON=0; if that install
# fails (no wheel for this platform, no network), they are skipped with the reason printed.
#
# Environment: TMEMU_PY_VENV (default: target/py-venv), CARGO_TARGET_DIR (honoured by maturin).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv=${TMEMU_PY_VENV:-$root/target/py-venv}
python=${PYTHON:-python3}

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$root/python" pytest numpy ml_dtypes
if [ "${TMEMU_PY_TRITON:-1}" != 0 ]; then
    "$venv/bin/python" -m pip install -q "triton==3.9.0" ||
        echo "python/ci.sh: triton==3.9.0 could not be installed; the Triton tests will be skipped"
fi
# Run from outside python/ so that `import tmemu` is the installed package (python/tmemu has
# no compiled extension).
cd "$root"
export TRITON_DEFAULT_FP_FUSION=1
"$venv/bin/python" -m pytest -q -rsxX -p no:cacheprovider python/tests
