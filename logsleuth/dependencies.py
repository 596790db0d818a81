"""The one-line message for a Python that lacks a package logsleuth needs.

Packages load when first needed (rich only for the formats it draws, Lark when the first line
reaches the grammar), so the missing one may show itself at the start or in the middle of a run;
both places (`__main__` and the command line's error handler) say it the same way. Imports
nothing but the standard library, so it loads where the dependencies do not.
"""

import sys


def missing_package_message(exc: ModuleNotFoundError) -> str:
    """What to tell a user whose Python lacks the package `exc` names."""
    return (f"logsleuth: this Python ({sys.executable}) lacks the package {exc.name!r} that "
            "logsleuth needs; install logsleuth into it (`pip install .` in the checkout) or run "
            "the `logsleuth` command of the environment it is installed in")
