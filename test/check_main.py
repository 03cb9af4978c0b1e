"""The command line shared by the source checks (check_layers.py, check_fs_owner.py): with
--self-test run the check on a tree built to fail it; otherwise check SOURCE_ROOT (the
repository by default), print every finding and a summary, and exit 1 if anything was found."""
import os
import sys


def check_main(violations, self_test, summary):
    """violations(root) yields findings; summary(found) is the last line printed."""
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    found = list(violations(root))
    for v in found:
        print(v)
    print(summary(found))
    return 1 if found else 0
