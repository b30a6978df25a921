#!/usr/bin/env python3
"""Compiles every Swift snippet in README.md, Docs/ and the DocC catalogs against the built modules.

`make check-snippets` (CI runs it after the tests, which build the modules): each ```swift block becomes a file of
its own, and `swiftc -emit-sil` compiles it with the package's modules (as far as the mandatory passes: a
block that type-checks can still crash the compiler), so a doc can no longer drift from the API.
An error is printed at the doc's own line: `README.md:88:5: error: ...`.

A block is the body of an `async throws` function, after its own imports, unless it is all declarations (a
`@Test func`, a type), which stay at the top of the file. An HTML comment on the line before a block says what the
prose around it provides:
    <!-- snippet given: session: TokenSession, url: URL -->   parameters of the function, for names the block uses
    <!-- snippet given: client: C | imports Module -->        ... and modules the block uses without showing their import
    <!-- snippet continues -->                                the block goes on from the one before it (same function)
    <!-- snippet manifest -->                                 Package.swift content: inside `Package(name:...)`
Every block is checked; there is no way to skip one.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTIVE = re.compile(r"^\s*<!--\s*snippet\s+(given:|continues|manifest)\s*(.*?)\s*-->\s*$")
DECLARATION = re.compile(r"^(@|(public |private |fileprivate |internal |final )*(func|struct|class|enum|extension|actor|protocol|typealias)\b)")


def docs():
    yield "README.md"
    for name in sorted(os.listdir(os.path.join(ROOT, "Docs"))):
        if name.endswith(".md"):
            yield os.path.join("Docs", name)
    sources = os.path.join(ROOT, "Sources")
    for module in sorted(os.listdir(sources)):
        catalog = os.path.join(sources, module, module + ".docc")
        if os.path.isdir(catalog):
            for name in sorted(os.listdir(catalog)):
                if name.endswith(".md"):
                    yield os.path.join("Sources", module, module + ".docc", name)


def snippets(path):
    """(first line number, lines, directive, argument) for each ```swift block."""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    found = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            directive, argument = None, ""
            if index > 0:
                match = DIRECTIVE.match(lines[index - 1])
                if match:
                    directive, argument = match.group(1).rstrip(":"), match.group(2)
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            body = lines[index + 1:end]
            # A block inside a list item is indented with it: read it as written at the margin.
            indent = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
            found.append((index + 2, [line[indent:] for line in body], directive, argument))
            index = end
        index += 1
    return found


def module_of(path):
    """The module a catalog documents, imported for its blocks (README blocks import what they use)."""
    parts = path.split(os.sep)
    return parts[1] if parts[0] == "Sources" else None


def units(path):
    """Files to check for one doc: (source text, {generated line: doc line})."""
    made = []
    for first, body, directive, argument in snippets(path):
        if directive == "continues" and made:
            made[-1]["blocks"].append((first, body))
            continue
        made.append({"blocks": [(first, body)], "directive": directive, "argument": argument})
    for unit in made:
        text, mapping = [], {}
        imports = {"Foundation", "BinderyRuntime"} if unit["directive"] != "manifest" else set()
        # `given: client: Client | imports Module`: a module the prose names without showing its import.
        if " | imports " in unit["argument"]:
            unit["argument"], hidden = unit["argument"].split(" | imports ", 1)
            imports.update(hidden.split())
        if module_of(path) and unit["directive"] != "manifest":
            imports.add(module_of(path))
        code = []
        for first, body in unit["blocks"]:
            for offset, line in enumerate(body):
                match = re.match(r"^import (\w+)", line)
                if match:
                    imports.add(match.group(1))
                    continue
                code.append((first + offset, line))
        if unit["directive"] == "manifest":
            text = ["import PackageDescription", "let package = Package(", '    name: "App",']
            imports = set()
        else:
            text = ["import " + name for name in sorted(imports)]
            declarations = [line for _, line in code if line and not line.startswith((" ", "//"))]
            # `#if canImport(Security)` around declarations (Apple-only code) keeps them at file scope.
            if declarations and all(DECLARATION.match(line) or line.startswith(("}", "#")) for line in declarations):
                unit["directive"] = "declarations"
            else:
                given = unit["argument"] if unit["directive"] == "given" else ""
                text.append(f"func snippet({given}) async throws {{")
        for doc_line, line in code:
            mapping[len(text) + 1] = doc_line
            text.append(line)
        if unit["directive"] == "manifest":
            text.append(")")
        elif unit["directive"] != "declarations":
            text.append("}")
        yield "\n".join(text) + "\n", mapping, unit["directive"]


def main():
    modules = os.path.join(ROOT, ".build", "debug", "Modules")
    if not os.path.isdir(modules):
        sys.exit("check-snippets: error: no built modules in .build/debug/Modules: run `make test` (or swift build --build-tests) first")
    manifest_api = None
    for candidate in ["/opt/swift/usr/lib/swift/pm/ManifestAPI", "/usr/lib/swift/pm/ManifestAPI"]:
        if os.path.isdir(candidate):
            manifest_api = candidate
    # The C modules the Swift modules were built against: ours, and those of the packages they depend on.
    c_modules = [os.path.join(ROOT, "Sources", "CCurl")]
    checkouts = os.path.join(ROOT, ".build", "checkouts")
    for name in ["FlyingFox/CSystemLinux/include", "GRDB.swift/Sources/GRDBSQLite", "Yams/Sources/CYaml/include"]:
        if os.path.isdir(os.path.join(checkouts, name)):
            c_modules.append(os.path.join(checkouts, name))
    checked, failures = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for path in docs():
            for number, (text, mapping, directive) in enumerate(units(path), start=1):
                source = os.path.join(folder, f"snippet{checked}.swift")
                with open(source, "w", encoding="utf-8") as handle:
                    handle.write(text)
                # A manifest is only type-checked. Other blocks go through SIL generation and the mandatory passes
                # too: Swift 6.3.1 type-checks some code that it then crashes compiling (a `catch … where` on an
                # async call with typed throws), and a user copying the block would meet that crash.
                command = ["swiftc", "-swift-version", "6", "-suppress-warnings", source]
                if directive == "manifest":
                    command.insert(1, "-typecheck")
                    if manifest_api is None:
                        sys.exit("check-snippets: error: the toolchain's PackageDescription module is not found")
                    command += ["-I", manifest_api, "-package-description-version", "6.0"]
                else:
                    command += ["-emit-sil", "-o", os.devnull, "-I", modules]
                    command += [arg for folder in c_modules for arg in ("-I", folder)]
                result = subprocess.run(command, capture_output=True, text=True)
                checked += 1
                if result.returncode != 0:
                    failures += 1
                    reported = False
                    for line in (result.stderr or result.stdout).splitlines():
                        match = re.match(re.escape(source) + r":(\d+):(\d+): (error: .*)", line)
                        if match:
                            doc_line = mapping.get(int(match.group(1)), min(mapping.values(), default=0))
                            print(f"{path}:{doc_line}:{match.group(2)}: {match.group(3)}", file=sys.stderr)
                            reported = True
                    if not reported:
                        first = min(mapping.values(), default=0)
                        message = (result.stderr or result.stdout).strip().splitlines()
                        print(f"{path}:{first}: error: {message[0] if message else 'swiftc failed'}", file=sys.stderr)
    if failures:
        sys.exit(f"check-snippets: {failures} of {checked} snippets do not compile")
    print(f"check-snippets: all {checked} Swift snippets in README.md, Docs/ and the DocC catalogs compile.")


if __name__ == "__main__":
    main()
