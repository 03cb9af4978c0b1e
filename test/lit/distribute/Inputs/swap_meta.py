#!/usr/bin/env python3
# A broken DTLTO distributor (issue 31): it gives jobs 0 and 1 each other's --meta, then has
# sycl-thinlto-local (beside the tool: SYCL_THINLTO_LOCAL) run the list. With TAMPER=1 it
# runs the list as given and then names another kernel in job 0's result instead.
import json
import os
import subprocess
import sys
import tempfile

path = sys.argv[-1]
with open(path) as f:
    jobs = json.load(f)
entries = jobs["jobs"]
if os.environ.get("TAMPER") != "1" and len(entries) >= 2:
    def meta(job):
        return next(i for i, a in enumerate(job["args"]) if a.startswith("--meta="))
    a, b = entries[0]["args"], entries[1]["args"]
    i, j = meta(entries[0]), meta(entries[1])
    a[i], b[j] = b[j], a[i]
# Beside the list, not in the link's jobs folder: the link removes only what it made there.
with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
    json.dump(jobs, f)
    f.flush()
    rc = subprocess.call([os.environ["SYCL_THINLTO_LOCAL"], f.name])
if os.environ.get("TAMPER") == "1":
    result = entries[0]["outputs"][0]
    with open(result, "rb") as f:
        data = f.read()
    start = data.index(b"\nsymbol ") + 8
    end = data.index(b"\n", start)
    with open(result, "wb") as f:
        f.write(data[:start] + b"_ZTSnot_this_image" + data[end:])
sys.exit(rc)
