"""Judging definitions: the rules and their catalogue, validation, project configuration, reports.

``validate`` runs the rules over files and texts and builds a :class:`ValidationReport`;
``rules`` holds every check, and ``rules.catalog`` says each rule's code, severity per profile,
message and documentation; ``config`` reads ``[tool.subagents]`` and ``.subagents.toml``;
``report`` prints text, JSON, SARIF and GitHub annotations; ``baseline`` remembers accepted
findings; ``schema`` is the JSON Schema of the format; ``trust`` decides whether a project's
configuration may run anything.
"""
