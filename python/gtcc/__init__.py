"""gtcc from Python: compile a .stn program at run time (cached) and call its stencils on
NumPy arrays (and CuPy arrays with the cuda backend), zero-copy. docs/python.md."""

from ._errors import GtccError, GtccWarning, StencilError
from ._compile import compile, cache_dir, Module
from ._stencil import Stencil
from ._alloc import zeros, empty, GtArray
from ._mpi import Decomposition

__all__ = ["compile", "cache_dir", "Module", "Stencil", "GtccError", "GtccWarning", "StencilError",
           "zeros", "empty", "GtArray", "Decomposition"]
__version__ = "0.1.0"
