"""Re-exports that load on first use, so importing a package does not import its heavy modules.

A package that uses them also imports the same names under ``if TYPE_CHECKING:``, so mypy and editors
see their real types, and installs the hooks under ``if not TYPE_CHECKING:``: a module ``__getattr__``
that mypy can see would make every misspelt name type-check as ``Any``.
``tests/architecture/test_public_interface.py`` checks that the two lists agree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` that import ``exports[name]`` (a module of ``package``) on use.

    Args:
        package: the re-exporting package's ``__name__``.
        exports: public name → the submodule (relative to ``package``) that defines it.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 (the module hook's name)
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        importlib.import_module(package).__dict__[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*importlib.import_module(package).__dict__, *exports})

    return __getattr__, __dir__
