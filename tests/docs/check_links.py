#!/usr/bin/env python3
"""The manual's pages and links (issue 34): README.md and every docs/*.md page.

Fails (exit 1, one `FILE:LINE: problem` per finding) when
- a relative link or image ([text](target), ![alt](target)) names a file that does not exist,
  or an #anchor that no heading of the target page gives (GitHub's heading ids);
- a page named in backquotes (`docs/ha.md`, `web/README.md`) does not exist beside the page or
  at the repository root (paths starting with ../ point outside the repository: skipped);
- a ``` code block is never closed (its links would go unchecked);
- a docs/*.md page is missing from README.md's links, or does not open with a title and a
  paragraph (its "what and when") before its first section.
Links to http(s), mailto and other schemes are not fetched.

Usage: check_links.py [ROOT]          (ROOT: the repository, default: two folders up)
       check_links.py --installed DIR (the package's copy: README.md and the pages in one
                                       folder, /usr/share/doc/ibwarden; tests/deb runs it)
       check_links.py --self-test     (the checks fail on a broken tree; ctest runs both)
"""
import os
import re
import sys
import tempfile

LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
CODE_PAGE = re.compile(r'`([\w./-]+\.md)(?:#[\w-]+)?`')
FENCE = re.compile(r'^\s*(```|~~~)')


def slug(heading):
    """GitHub's id of a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r'`|\*\*|__', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line.rstrip('\n')


def anchors(path, cache):
    if path not in cache:
        ids, seen = set(), {}
        for _, line in prose_lines(path):
            m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if m:
                base = slug(m.group(1))
                k = seen.get(base, 0)
                seen[base] = k + 1
                ids.add(base if k == 0 else f'{base}-{k}')
        cache[path] = ids
    return cache[path]


def check_opening(path, rel, problems):
    """A page opens with `# Title`, then a paragraph of prose before any `##` section."""
    lines = [t for _, t in prose_lines(path)]
    body = [t for t in lines if t.strip()]
    if not body or not body[0].startswith('# '):
        problems.append(f'{rel}:1: the page does not open with a "# Title" line')
        return
    nxt = body[1] if len(body) > 1 else ''
    if not nxt or nxt.startswith('#') or nxt.startswith('|') or nxt.startswith('```'):
        problems.append(f'{rel}:1: no "what and when" paragraph under the title')


def check(root, flat=False):
    """flat: the pages are beside README.md (the installed manual), not in docs/."""
    problems, cache = [], {}
    pages = [os.path.join(root, 'README.md')]
    docs = root if flat else os.path.join(root, 'docs')
    if os.path.isdir(docs):
        pages += sorted(os.path.join(docs, p) for p in os.listdir(docs)
                        if p.endswith('.md') and p != 'README.md')
    readme_targets = set()
    for page in pages:
        rel = os.path.relpath(page, root)
        if not os.path.isfile(page):
            problems.append(f'{rel}:0: missing')
            continue
        here = os.path.dirname(page)
        if page != pages[0]:
            check_opening(page, rel, problems)
        with open(page, encoding='utf-8') as f:
            fences = [n for n, line in enumerate(f, 1) if FENCE.match(line)]
        if len(fences) % 2:
            problems.append(f'{rel}:{fences[-1]}: a ``` block opened here is never closed '
                            '(the rest of the page would show as code)')
        for n, line in prose_lines(page):
            for target in LINK.findall(line):
                if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(here, file_part)) if file_part else page
                if not os.path.exists(dest):
                    problems.append(f'{rel}:{n}: broken link {target}: {file_part} does not exist')
                    continue
                if page.endswith('README.md') and here == root:
                    readme_targets.add(dest)
                if anchor and dest.endswith('.md') and anchor not in anchors(dest, cache):
                    problems.append(f'{rel}:{n}: broken link {target}: no heading #{anchor} '
                                    f'in {os.path.relpath(dest, root)}')
            for named in CODE_PAGE.findall(line):
                if named.startswith('../') or flat:  # the installed copy has no source tree
                    continue
                if not (os.path.exists(os.path.join(here, named))
                        or os.path.exists(os.path.join(root, named))):
                    problems.append(f'{rel}:{n}: names the page `{named}`, which does not exist')
    for page in pages[1:]:
        if page not in readme_targets:
            problems.append(f'README.md:0: the manual\'s page {os.path.relpath(page, root)} '
                            'is not linked from the README')
    return problems


def self_test():
    """A small broken tree: every kind of problem must be found, and its fixed copy passes."""
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, 'docs', 'img'))

        def put(name, text):
            with open(os.path.join(t, name), 'w', encoding='utf-8') as f:
                f.write(text)
        put('docs/img/a.png', 'png')
        put('docs/a.md', '# A\n\nWhat and when.\n\n## The `x` part\n\nSee [b](b.md#bottom).\n'
            '![shot](img/missing.png) and `docs/nothing.md`.\n```\n[fenced](nope.md)\n```\n')
        put('docs/b.md', '# B\n## Top\n')
        put('docs/c.md', '# C\n\nNot linked from the README.\n\n```sh\nopen\n')
        put('README.md', '[A](docs/a.md#the-x-part) [B](docs/b.md) [gone](docs/gone.md)\n'
            '![shot](docs/img/a.png) [web](https://example.com/x.md)\n')
        found = '\n'.join(check(t))
        expect = ['docs/gone.md does not exist', 'no heading #bottom in docs/b.md',
                  'img/missing.png does not exist', '`docs/nothing.md`, which does not exist',
                  'docs/b.md:1: no "what and when"', 'docs/c.md is not linked',
                  'docs/c.md:5: a ``` block opened here is never closed']
        missed = [e for e in expect if e not in found]
        extra = [p for p in found.splitlines() if not any(e in p for e in expect)]
        if missed or extra or len(found.splitlines()) != len(expect):
            print('self-test: expected problems not found: %s\nunexpected: %s\nall:\n%s'
                  % (missed, extra, found))
            return 1
        put('docs/a.md', '# A\n\nWhat and when.\n\n## The `x` part\n\nSee [b](b.md#top).\n')
        put('docs/b.md', '# B\n\nWhat.\n\n## Top\n')
        put('docs/c.md', '# C\n\nLinked now.\n')
        put('README.md', '[A](docs/a.md#the-x-part) [B](docs/b.md) [C](docs/c.md)\n')
        fixed = check(t)
        if fixed:
            print('self-test: the fixed tree still fails:\n' + '\n'.join(fixed))
            return 1
    print('self-test: the check finds all 7 kinds of broken page and link, and passes the fixed tree')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    flat = sys.argv[1:2] == ['--installed']
    args = sys.argv[2:] if flat else sys.argv[1:]
    root = os.path.abspath(args[0] if args else
                           os.path.join(os.path.dirname(__file__), '..', '..'))
    problems = check(root, flat)
    for p in problems:
        print(p)
    folder = root if flat else os.path.join(root, 'docs')
    n = 1 + len([p for p in os.listdir(folder) if p.endswith('.md') and p != 'README.md'])
    print(f'docs: {n} pages, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
