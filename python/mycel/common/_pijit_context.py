"""``mindspore.common._pijit_context``: MindSpore's bytecode JIT (PIJit) entry.

mycel compiles Python functions from their source (``jit(capture_mode="ast")``) and has no
bytecode capture, so ``PIJitCaptureContext`` can be imported (test utilities import it beside
``_c_expression.get_code_extra``) but using it raises NotImplementedError naming the
alternative."""


class PIJitCaptureContext:
    """PIJitCaptureContext(jit_config=None, fullgraph=False, ...): not implemented in mycel."""

    def __init__(self, *args, **kwargs):
        self._args = args
        self._kwargs = kwargs

    def __call__(self, fn=None):
        raise NotImplementedError("mycel has no bytecode JIT (PIJit, jit(capture_mode="
                                  "'bytecode')); compile with mycel.jit (capture_mode='ast')")
