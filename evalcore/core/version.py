"""The version of evalcore, recorded in every run's provenance."""

__version__ = "0.2.0"
