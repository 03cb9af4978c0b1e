# Prints each name the tool's --help gives that the man page or the bash completion leaves
# out: every option of `link --help` (the man page's LINK OPTIONS) and every command of
# `sycl-thinlto --help` (the man page's COMMANDS, the completion's command list).
import re, subprocess, sys

tool, man_path, completion_path = sys.argv[1:4]
man = open(man_path).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
completion = open(completion_path).read()

def help_text(*args):
    return subprocess.run([tool, *args, "--help"], capture_output=True, text=True, check=True).stdout

options = set(re.findall(r"(?:^|[ ,])(--?[A-Za-z][A-Za-z0-9-]*)", help_text("link"), re.M))
commands = re.findall(r"^  ([a-z][a-z-]+) ", help_text().split("COMMANDS:")[1], re.M)
listed = re.search(r'commands="([^"]*)"', completion).group(1).split()
for option in sorted(options):
    if not re.search(re.escape(option) + r"(?![A-Za-z0-9-])", man):
        print("man page: option", option)
for command in commands:
    if not re.search(r"^\.B " + re.escape(command) + "$", man, re.M):
        print("man page: command", command)
    if command not in listed:
        print("completion: command", command)
print(len(options), "options,", len(commands), "commands")
