"""Changing definitions: ``fix`` repairs what can be repaired, ``convert`` moves agents between
dialects and reports every loss.  Both write atomically and never lose the original.
"""
