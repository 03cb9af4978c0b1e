# A DTLTO distributor for tests: parses the job list the link wrote with Python's JSON
# parser (strict: a raw control byte in a string is an error), appends ascii() of its
# linker_output to job-lists.txt, then runs the jobs with sycl-thinlto-local.
import json, os, sys

with open(sys.argv[-1], "rb") as f:
    jobs = json.loads(f.read().decode("utf-8"))
with open("job-lists.txt", "a") as f:
    f.write(ascii(os.path.basename(jobs["common"]["linker_output"])) + "\n")
os.execvp("sycl-thinlto-local", ["sycl-thinlto-local", sys.argv[-1]])
