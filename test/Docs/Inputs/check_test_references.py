"""Checks that every test file the docs name exists.

Scans the given Markdown files for paths under test/ (with `*` globs and
`{a,b}` alternatives, as the guides write them, and bare file names listed
right after such a path, `test/A/x.mlir, y.mlir`, which name files of its
folder) and prints
each that matches no file of the source tree; exits 1 if there is one.
"""
import glob
import itertools
import os
import re
import sys

PATH = re.compile(r'(?<![\w/.-])(test/)?[\w/.*{},-]+\.(?:mlir|test|py|c|json|cfg)(?!\w)')

# Between two names of one list: a comma, possibly after a parenthesis.
LIST_SEPARATOR = re.compile(r'^(\s*\([^()]*\))?,\s*$')


def expand(pattern):
    """The brace alternatives of `pattern` ({a,b}c -> [ac, bc])."""
    parts = re.split(r'\{([^{}]*)\}', pattern)
    choices = [[p] if i % 2 == 0 else p.split(',')
               for i, p in enumerate(parts)]
    return [''.join(c) for c in itertools.product(*choices)]


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    missing = []
    for doc in docs:
        text = open(doc, encoding='utf-8').read()
        for number, line in enumerate(text.splitlines(), 1):
            folder, end = None, None
            for match in PATH.finditer(line):
                name = match.group(0)
                listed = LIST_SEPARATOR.match(line[end:match.start()])
                end = match.end()
                if match.group(1):
                    folder = os.path.dirname(name)
                elif folder is None or '/' in name or not listed:
                    folder = None
                    continue
                else:
                    name = os.path.join(folder, name)
                for path in expand(name):
                    if not glob.glob(os.path.join(root, path)):
                        missing.append('%s:%d: %s' % (
                            os.path.relpath(doc, root), number, path))
    print('\n'.join(missing) or 'all test references exist')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
