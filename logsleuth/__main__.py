"""`python -m logsleuth`.

Run with a Python that lacks logsleuth's dependencies (the system Python beside a checkout, say),
the import of the command line fails before it can turn errors into exit codes, so the missing
package is named here in one line instead of a traceback.
"""

import sys

from logsleuth.dependencies import missing_package_message

try:
    from logsleuth.cli import main
except ModuleNotFoundError as exc:
    sys.stderr.write(missing_package_message(exc) + "\n")
    sys.exit(70)  # EXIT_INTERNAL: logsleuth itself cannot run; the cli module could not load

main()
