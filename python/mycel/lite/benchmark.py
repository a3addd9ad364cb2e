"""``python -m mycel.lite.benchmark --modelFile=F [--loopCount=N --numThreads=T
--inDataFile=a.bin,b.bin --benchmarkDataFile=ref.txt]``: the benchmark's command line (the
flags of ``build/mycel_benchmark``: latency min/mean/p99, peak memory, accuracy against a
reference in MindSpore Lite benchmark's text form)."""
import sys

from mycel import _mycel


def main(argv=None):
    """Runs the benchmark on ``argv`` (default: the command line); returns the exit status
    (0 ok, 1 accuracy over the threshold, 2 an error)."""
    try:
        status, report = _mycel._lite.benchmark_main(
            list(sys.argv[1:] if argv is None else argv))
    except (ValueError, TypeError, RuntimeError) as e:
        print(f"mycel_benchmark: {e}", file=sys.stderr)
        return 2
    print(report, end="")
    return status


if __name__ == "__main__":
    sys.exit(main())
