"""``python -m mycel.lite.benchmark --modelFile=F [--loopCount=N --numThreads=T
--inDataFile=a.bin,b.bin --benchmarkDataFile=ref.txt]``: the benchmark's command line (the
flags of ``build/mycel_benchmark``: latency min/mean/p99, peak memory, accuracy against a
reference in MindSpore Lite benchmark's text form)."""
import sys

from mycel import _mycel
from mycel.lite import _cli


def main(argv=None):
    """Runs the benchmark on ``argv`` (default: the command line); returns the exit status
    (0 ok, 1 accuracy over the threshold, 2 an error)."""
    return _cli.run(_mycel._lite.benchmark_main, argv, "mycel_benchmark", 2)


if __name__ == "__main__":
    sys.exit(main())
