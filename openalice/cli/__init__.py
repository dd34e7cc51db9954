"""Command-line layer: one module per tool, argument parsing and printing only.

Start-up cost matters (cron runs ``alice-schedule scan`` every minute), so a
tool module imports nothing but :mod:`openalice.cli._run`; ``--help`` and
``--version`` are answered from static text, argparse is imported only to
parse a real verb, and domain modules only inside the verb that needs them.
"""
