"""``python -m trulymem``: the command line."""

from trulymem.cli import main

main()
