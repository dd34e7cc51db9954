"""Headless runs: task registry, supervisor and normalized output."""
