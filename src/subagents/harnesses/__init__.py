"""Every coding-agent harness's own subagent format: where it looks, how it reads, how to write.

One module per harness implements :class:`subagents.harnesses.base.Harness`; see that module for
the design.  :mod:`subagents.harnesses.crosswalk` translates tool names between harnesses.
"""
