"""OpenAlice toolkit: an autonomous work-and-delivery loop for AI coding agents.

The package is standard-library only at run time.  ``openalice.core`` is the
domain-free foundation; ``openalice.cli`` parses and prints; every other
subpackage is one capability with a small public API.
"""

__version__ = "0.1.0"
