# removed_by_thread.py TRACE PREFIX: TRACE is `strace -f -e trace=execve,...,unlink` of one
# command; prints which process or thread removed the file whose name starts with PREFIX:
# "main" (the command's own thread, the one that ran execve) or "thread".
import sys

lines = open(sys.argv[1]).read().splitlines()
main = lines[0].split()[0]
for line in lines:
    if 'unlink("%s' % sys.argv[2] in line and line.endswith("= 0"):
        print("main" if line.split()[0] == main else "thread")
