"""``python -m trulymem.cli``: the command line."""

from trulymem.cli import main

main()
