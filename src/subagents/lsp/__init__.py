"""``subagents lsp``: a language server for agent files (every harness), over stdio.

Design notes
------------
* Two halves.  :mod:`subagents.lsp.analysis` and :mod:`subagents.lsp.assist` are plain Python
  (no pygls): what the diagnostics, code actions, hover texts and completions of a document
  are, in 0-based lines and code-point columns.  :mod:`subagents.lsp.server` is the pygls glue:
  protocol, positions in the client's units, debouncing, cancelling stale work, bad input.
* One judge.  A document's diagnostics are those of ``subagents validate FILE`` run on the
  editor's text: the same rules, the same configuration (``.subagents.toml`` or
  ``pyproject.toml`` found from the file's real folder, its profile and per-file ignores), the
  same harness (judged by the folder the file is in).  The text is written to a private
  temporary copy that keeps the file's name and harness folder, and the copy is validated
  through :func:`subagents.lint.validate.validate_paths` -- the public entry point, so a change
  inside the validator reaches the editor without a change here.  Rules about several files at
  once (two agents with one name) need the folder, so like ``validate FILE`` they do not run.
* Only agent files get diagnostics: a file in an agents folder of some harness, an
  ``agents.json``, ``opencode.json`` or ``*.agent.md``; any other Markdown, TOML or JSON file
  the editor sends (a README) gets none, so registering the server for ``.md`` is harmless.
* pygls is imported only by the ``lsp`` command (``import subagents`` and ``validate`` never
  pay for it).
"""
