"""The command lines of ``python -m mycel.lite.convert`` and ``python -m mycel.lite.benchmark``:
the C++ tool's entry (a function of the argument list returning (status, report)), its
report on stdout, an error as ``<tool>: <message>`` on stderr with status ``error_status``."""
import sys


def run(entry, argv, tool, error_status):
    """Runs ``entry`` on ``argv`` (default: the command line); returns the exit status."""
    try:
        status, report = entry(list(sys.argv[1:] if argv is None else argv))
    except (ValueError, TypeError, RuntimeError) as e:
        print(f"{tool}: {e}", file=sys.stderr)
        return error_status
    print(report, end="")
    return status
