"""The provider-neutral hook contract v1 (``elydora hook --contract neutral-v1``).

Modules, each cheap to import on its own (the capability document must not pay for the hook path):

- :mod:`.contract`: identifiers, limits, enumerations, the selector rule and :class:`~.contract.ContractError`;
- :mod:`.request`: bounded reading, JSON framing, lenient alias decoding and declared (strict) validation;
- :mod:`.aliases`: event and tool-name normalisation (``BeforeTool``, ``functions.exec_command``, ...);
- :mod:`.response`: effect derivation, the response document, ``hook-`` ids and the byte encoding;
- :mod:`.capabilities`: the ``elydora hooks capabilities`` discovery document;
- :mod:`.hookcommand`: the hook-command grammar (:func:`~.hookcommand.parse_hook_command`);
- :mod:`.agentstate` and :mod:`.audit`: the guard's status read and the audit spool append;
- :mod:`.engine`: one hook call, neutral or provider-native.

See ``docs/neutral.md``.
"""
