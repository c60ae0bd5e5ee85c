"""The ``trulymem`` command line. Every command takes ``--db``, ``--user``,
``--agent``, ``--app``, ``--session`` and ``--json`` (each also from a
``TRULYMEM_*`` environment variable or the config file).

``base`` holds the ``main`` group and what the commands share; each other module
registers the commands of one area on it when imported here::

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

# isort: split
# The group first, then the modules whose import registers their commands on it.
from trulymem.cli import bench, chat, database, demo, dream, memory, serve, working  # noqa: F401

__all__ = ["main"]
