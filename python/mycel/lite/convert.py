"""``python -m mycel.lite.convert --fmk=MINDIR --modelFile=F --outputFile=BASE``: the
converter's command line (the flags of ``build/mycel_convert``)."""
import sys

from mycel import _mycel
from mycel.lite import _cli


def main(argv=None):
    """Runs the converter on ``argv`` (default: the command line); returns the exit status
    (0 converted, 1 an error)."""
    return _cli.run(_mycel._lite.convert_main, argv, "mycel_convert", 1)


if __name__ == "__main__":
    sys.exit(main())
