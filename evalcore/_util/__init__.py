"""Internal helpers with no evalcore dependency: JSON helpers, lazy re-exports, "did you mean" suggestions.

Imports nothing from evalcore; every other sub-package may import from here. Nothing here is public API.
"""
