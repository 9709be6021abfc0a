#!/usr/bin/env python3
"""List Rust functions longer than a limit and files longer than a limit (house style:
modules of roughly 100-400 lines, functions under about 60).

usage: bench/long_functions.py [--fn-lines N] [--file-lines N] [--exclude DIR ...] [ROOT ...]

A function's length counts from its `fn` line to its closing brace, both included. The scan is
a small lexer (strings, raw strings, chars, lifetimes and comments are skipped when matching braces),
not a Rust parser: good enough to count, not to refactor by.
"""
import argparse
import os
import re
import sys

FN_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                   r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_only(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = len(re.match(r'r(#*)"', text[i:]).group(1))
            end = text.find('"' + "#" * hashes, i + 2 + hashes)
            end = n if end < 0 else end + 1 + hashes
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, length) of every fn with a body in the file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = code_only(text).split("\n")
    found = []
    for idx, line in enumerate(lines):
        m = FN_RE.match(line)
        if not m:
            continue
        # `nest` counts open brackets in the signature, so the `;` of an array type such as
        # `&mut [[u32; 3]]` is not taken for the end of a declaration without a body.
        depth, started, nest = 0, False, 0
        for j in range(idx, len(lines)):
            for ch in lines[j]:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif not started and ch in "([":
                    nest += 1
                elif not started and ch in ")]":
                    nest -= 1
                elif ch == ";" and not started and depth == 0 and nest == 0:
                    break  # a declaration without a body
            else:
                if started and depth == 0:
                    found.append((m.group(1), idx + 1, j - idx + 1))
                    break
                continue
            break
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="*", default=["src"])
    ap.add_argument("--fn-lines", type=int, default=60)
    ap.add_argument("--file-lines", type=int, default=400)
    ap.add_argument("--exclude", action="append", default=[], help="path prefix to skip")
    args = ap.parse_args()
    files = []
    for root in args.roots:
        for dirpath, _, names in os.walk(root):
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".rs")]
    files = sorted(f for f in files if not any(f.startswith(e) for e in args.exclude))
    long_fns, long_files = [], []
    for path in files:
        with open(path, encoding="utf-8") as f:
            count = sum(1 for _ in f)
        if count > args.file_lines:
            long_files.append((count, path))
        long_fns += [(n, path, line, name) for name, line, n in functions(path) if n > args.fn_lines]
    print(f"functions over {args.fn_lines} lines: {len(long_fns)}")
    for n, path, line, name in sorted(long_fns, reverse=True):
        print(f"  {n:4d}  {path}:{line}  {name}")
    print(f"files over {args.file_lines} lines: {len(long_files)}")
    for n, path in sorted(long_files, reverse=True):
        print(f"  {n:4d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
