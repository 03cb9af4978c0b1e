# Prints each message README's troubleshooting table quotes that the sources do not hold.
# A message is the first column's `...` spans; its words FILE, NAME, N, ... (PLACEHOLDERS)
# and "..." stand for what changes, and each piece between them must be a piece of one
# string literal of the C/C++ sources (adjacent literals joined; %s, %d, ... split it), or
# pieces of several joined at ": " (an option or origin before the message), where a piece
# may begin with a whole literal (a name such as .llvm.offloading printed through %s).
import glob, os, re, sys

root = sys.argv[1]
PLACEHOLDERS = r"\b(?:FILE|DIR|PROGRAM|STEP|NAME|MANGLED|LIB|KIND|SIGNAL|INPUT|OPTION|TRIPLE|PATH|N|A|B)\b|\.\.\."

literals, wholes = [], set()
for path in glob.glob(os.path.join(root, "**", "*.[ch]"), recursive=True) + \
        glob.glob(os.path.join(root, "**", "*.cpp"), recursive=True):
    if "/build" in path[len(root):] or "/test/" in path[len(root):]:
        continue
    code = open(path, encoding="utf-8", errors="replace").read()
    code = re.sub(r"//[^\n]*", "", code)
    for run in re.finditer(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*', code):
        text = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', run.group(0)))
        text = text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        wholes.add(text)
        literals += re.split(r"%[-+ #0-9.*]*(?:zu|zd|llu|lld|lu|ld|s|d|u|c|x|p|g|f)", text)

def found(part):
    if any(part in l for l in literals):
        return True
    return any(part.startswith(w + " ") and any(part[len(w):] in l for l in literals)
               for w in wholes if len(w) > 3)

readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
section = readme.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
rows = [line for line in section.splitlines() if line.startswith("| `")]
count = 0
for row in rows:
    for message in re.findall(r"`([^`]+)`", row.split(" | ")[0]):
        count += 1
        for piece in re.split(PLACEHOLDERS, message):
            piece = piece.strip(" :")
            if len(piece) > 1 and not all(found(part) for part in piece.split(": ")):
                print("not in the sources:", repr(piece), "of", repr(message))
print(count, "messages")
