#!/usr/bin/env python3
"""Reduces Microsoft Graph's v1.0 $metadata to its facts: Specs/Graph/Graph.csdl.xml.

    scripts/graph-metadata.py [SOURCE] [DESTINATION]

SOURCE defaults to ../shared/corpus/graph-v1.0.csdl.xml (microsoftgraph/msgraph-metadata,
clean_v10_metadata/cleanMetadata.xml, MIT License); DESTINATION to Specs/Graph/Graph.csdl.xml.

Kept: every schema element and every annotation that states a fact (capabilities, restrictions, computed,
permissions, change tracking). Dropped: the Core.V1.Description and Core.V1.LongDescription annotations and
the Description members of annotation records, which are Microsoft's prose rather than facts about the API.
An element left with no children is closed in place, so the output reads like the source.
Then our own schemas, Specs/Graph/*.csdl-schema.xml in name order, are added after Microsoft's: Monitors (the
copies answered with a URL to poll) and StorageHosts (the requests answered at upload and download URLs).
The script is deterministic: the same source always gives the same bytes (make check-gen relies on the result).
"""
import re
import sys
from pathlib import Path

PROSE = re.compile(
    r'^\s*<(Annotation Term="Org\.OData\.Core\.V1\.(Long)?Description"'
    r'|PropertyValue Property="(Long)?Description") String="[^"]*"\s*/>\s*$'
)
OPEN = re.compile(r'^(\s*)<([A-Za-z]+)([^<>]*[^/<>])?>\s*$')
HEADER = """<!-- Microsoft Graph v1.0 $metadata, reduced to its facts by scripts/graph-metadata.py (descriptions removed).
     Source: microsoftgraph/msgraph-metadata, clean_v10_metadata/cleanMetadata.xml at commit {commit}.
     MIT License, Copyright (c) 2018 Microsoft Graph: see Specs/Graph/LICENSE-msgraph-metadata.txt. -->
"""


def reduce(lines):
    kept = []
    for line in lines:
        if PROSE.match(line):
            continue
        stripped = line.strip()
        if stripped.startswith("</") and kept:
            opening = OPEN.match(kept[-1])
            if opening and stripped == f"</{opening.group(2)}>":
                # <Property ...> whose only child was prose: <Property ... />
                kept[-1] = kept[-1].rstrip()[:-1].rstrip() + " />\n"
                continue
        kept.append(line)
    return kept


def main():
    root = Path(__file__).resolve().parent.parent
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "../shared/corpus/graph-v1.0.csdl.xml"
    destination = Path(sys.argv[2]) if len(sys.argv) > 2 else root / "Specs/Graph/Graph.csdl.xml"
    readme = source.parent / "README.md"
    commit = "unknown"
    if readme.exists():
        found = re.search(r"at commit ([0-9a-f]+)", readme.read_text())
        commit = found.group(1) if found else commit
    # The source starts with a byte order mark and no XML declaration; the output has a declaration, no mark.
    lines = source.read_text(encoding="utf-8-sig").splitlines(keepends=True)
    if lines and lines[0].startswith("<?xml"):
        lines = lines[1:]
    body = reduce(lines)
    ours = sorted((root / "Specs/Graph").glob("*.csdl-schema.xml"))
    end = next(i for i in range(len(body) - 1, -1, -1) if body[i].strip() == "</edmx:DataServices>")
    body[end:end] = [schema.read_text(encoding="utf-8") for schema in ours]
    declaration = '<?xml version="1.0" encoding="utf-8"?>\n'
    destination.write_text(declaration + HEADER.format(commit=commit) + "".join(body), encoding="utf-8")
    removed = len(lines) - len(body)
    print(f"{destination}: {len(body)} lines ({removed} lines of prose removed)")


if __name__ == "__main__":
    main()
