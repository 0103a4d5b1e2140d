#!/usr/bin/env python3
"""Nothing lost when a page's text moves (issue 34 moved the 1,309-line README into docs/).

Cuts OLD into sentences (prose split at '. ', list items, table rows, code lines), and looks
each one up, with whitespace and markdown emphasis folded, in the union of the NEW files:
- lost: not found anywhere (rewritten or dropped: read each one);
- twice: found in more than one place (a fact that should live in one page).
Short fragments (under 25 characters: "| --- |", "```sh") are not counted.

Usage: moved_check.py OLD NEW...
  e.g. git show main~1:README.md > /tmp/old.md
       tests/docs/moved_check.py /tmp/old.md README.md docs/*.md
Exit 0 when nothing is lost, 1 otherwise (twice is reported, not failed).
"""
import re
import sys


def fold(text):
    text = re.sub(r'\*\*|`', '', text)
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)  # a link's text only
    return re.sub(r'\s+', ' ', text).strip()


def pieces(text):
    """Sentences of prose blocks, and single lines of code blocks and tables."""
    out, block, fenced = [], [], False

    def flush():
        if block:
            para = ' '.join(block)
            para = re.sub(r'^(#+|[-*]|\d+\.)\s+', '', para)
            out.extend(re.split(r'(?<=[.;:!?)])\s+(?=[A-Z`*(])', para))
            block.clear()
    for line in text.split('\n'):
        s = line.strip()
        if s.startswith('```'):
            flush()
            fenced = not fenced
            continue
        if fenced or s.startswith('|'):
            flush()
            out.append(s)
        elif not s or s.startswith('#') or re.match(r'^([-*]|\d+\.)\s', s):
            flush()
            if s:
                block.append(s)
        else:
            block.append(s)
    flush()
    return [f for f in (fold(p) for p in out) if len(f) >= 25]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    old = open(sys.argv[1], encoding='utf-8').read()
    new = {p: fold(open(p, encoding='utf-8').read()) for p in sys.argv[2:]}
    lost, twice = [], []
    sentences = pieces(old)
    for s in sentences:
        where = [p for p, t in new.items() if s in t]
        count = sum(t.count(s) for t in new.values())
        if not where:
            lost.append(s)
        elif count > 1:
            twice.append((s, where))
    for s in lost:
        print('lost: ' + s[:160])
    for s, where in twice:
        print('twice (%s): %s' % (', '.join(where), s[:120]))
    print(f'moved_check: {len(sentences)} pieces of {sys.argv[1]}: '
          f'{len(sentences) - len(lost)} found verbatim, {len(lost)} lost, {len(twice)} twice')
    return 1 if lost else 0


if __name__ == '__main__':
    sys.exit(main())
