"""`python -m logsleuth`.

Run with a Python that lacks logsleuth's dependencies (the system Python beside a checkout, say),
the import of the command line fails before it can turn errors into exit codes, so the missing
package is named here in one line instead of a traceback.
"""

import sys

try:
    from logsleuth.cli import main
except ModuleNotFoundError as exc:
    sys.stderr.write(f"logsleuth: this Python ({sys.executable}) lacks the package {exc.name!r} "
                     "that logsleuth needs; install logsleuth into it (`pip install .` in the "
                     "checkout) or run the `logsleuth` command of the environment it is installed in\n")
    sys.exit(70)  # EXIT_INTERNAL: logsleuth itself cannot run; the cli module could not load

main()
