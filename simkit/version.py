"""simkit's version (its own module: anything may import it without the package's API)."""

__version__ = "0.1.0"
