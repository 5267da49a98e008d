"""The exceptions of tmemu (also raised by the native module, which imports this file)."""


class TmemuError(Exception):
    """Base class of every tmemu exception."""


class LaunchError(TmemuError, ValueError):
    """The launch is wrong before anything runs: argument count, dtype, layout, a scalar out of
    its parameter's range, the grid, shared memory... The message names the argument
    (``tmemu.launch: error: key 'arg[2]': ...``)."""


class PtxError(TmemuError, ValueError):
    """The PTX does not parse or load: ``file:line:col: error: ...`` as the CLI prints it."""


class UnsupportedError(TmemuError):
    """The kernel uses an instruction form or protocol tmemu does not model (the CLI's verdict
    ``incomplete``, exit 4). Nothing ran."""


class KernelError(TmemuError):
    """The run found rule violations, a hang or an incomplete model (only with
    ``raise_on_findings=True``). ``.result`` is the full :class:`tmemu.Result`."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result

    @property
    def findings(self):
        return self.result.findings if self.result is not None else []
