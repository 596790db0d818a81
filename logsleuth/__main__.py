"""`python -m logsleuth`."""

from logsleuth.cli import main

main()
