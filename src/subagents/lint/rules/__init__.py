"""Validation rules: the catalogue (``catalog``), what rules receive (``base``), the rules by
category (``fields``, ``spec``, ``security``, ``dialects``, ``scope``) and the engine that runs
them (``engine``).  Kept import-free so ``subagents.lint.rules.catalog`` stays cheap to import.
"""
