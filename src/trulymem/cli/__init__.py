"""The ``trulymem`` command line. Every command takes ``--db``, ``--user``,
``--agent``, ``--app``, ``--session`` and ``--json`` (each also from a
``TRULYMEM_*`` environment variable or the config file).

``base`` holds the ``main`` group and what the commands share; each other module
registers the commands of one area on it, and ``main`` imports a module only when
one of its commands runs (``base.COMMANDS``)::

    memory    commit, recall, purge, history
    working   task …, persona …
    database  stats, export, import, reindex
    chat      chat
    dream     dream, config retention
    serve     serve, mcp, keys …, tools
    bench     bench locomo
    demo      demo
"""

from trulymem.cli.base import main

__all__ = ["main"]
