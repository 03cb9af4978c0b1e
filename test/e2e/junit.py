#!/usr/bin/env python3
"""JUnit XML from a table of results, for CI systems that read it (Jenkins, GitLab, GitHub's
test reporters): one <testsuite> per suite, one <testcase> per row.

usage: junit.py OUT.xml ROWS.tsv
ROWS.tsv: one row a line, tab-separated: suite, class, name, result, message, details file.
result is pass, fail, skip (unsupported, with the message saying why) or xfail (a known
failure, reported as passed with its message in system-out). The details file (may be
empty) is read for the failure's text, its last 4000 characters. OUT.xml is written whole
or not at all (a temporary renamed over it)."""
import os
import sys
import xml.etree.ElementTree as ET

KEEP = 4000


def details(path):
    if not path or not os.path.isfile(path):
        return ""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    text = "".join(c for c in text if c in "\t\n\r" or ord(c) >= 0x20)  # XML 1.0 characters
    return text[-KEEP:]


def build(rows):
    root = ET.Element("testsuites")
    suites = {}
    for suite, cls, name, result, message, detail in rows:
        if suite not in suites:
            suites[suite] = ET.SubElement(root, "testsuite", name=suite)
        case = ET.SubElement(suites[suite], "testcase", classname=cls, name=name)
        if result == "fail":
            ET.SubElement(case, "failure", message=message).text = details(detail)
        elif result == "skip":
            ET.SubElement(case, "skipped", message=message)
        elif result == "xfail":
            ET.SubElement(case, "system-out").text = "expected failure: " + message
        elif result != "pass":
            raise SystemExit("junit.py: unknown result '%s' for %s" % (result, name))
    for element in [root] + list(suites.values()):
        cases = element.iter("testcase")
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for case in cases:
            counts["tests"] += 1
            counts["failures"] += case.find("failure") is not None
            counts["skipped"] += case.find("skipped") is not None
        for key, value in counts.items():
            element.set(key, str(value))
        element.set("errors", "0")
    return ET.ElementTree(root)


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 6:
                raise SystemExit("junit.py: %s:%d: expected 6 tab-separated fields, not %d"
                                 % (path, number, len(fields)))
            rows.append(fields)
    return rows


def write(tree, out):
    temporary = "%s.tmp.%d" % (out, os.getpid())
    try:
        tree.write(temporary, encoding="utf-8", xml_declaration=True)
        os.replace(temporary, out)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    write(build(read_rows(argv[2])), argv[1])


if __name__ == "__main__":
    main(sys.argv)
