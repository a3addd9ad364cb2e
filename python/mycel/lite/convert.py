"""``python -m mycel.lite.convert --fmk=MINDIR --modelFile=F --outputFile=BASE``: the
converter's command line (the flags of ``build/mycel_convert``)."""
import sys

from mycel import _mycel


def main(argv=None):
    """Runs the converter on ``argv`` (default: the command line); returns the exit status."""
    try:
        status, report = _mycel._lite.convert_main(list(sys.argv[1:] if argv is None else argv))
    except (ValueError, TypeError, RuntimeError) as e:
        print(f"mycel_convert: {e}", file=sys.stderr)
        return 1
    print(report, end="")
    return status


if __name__ == "__main__":
    sys.exit(main())
