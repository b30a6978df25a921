#!/usr/bin/env python3
"""The naive baseline Bindery's Graph output is measured against (see BENCHMARKS.md).

What most generators produce: one file per type, one struct per entity/complex type with every property
optional and synthesized Codable, inherited properties flattened, String-backed Codable enums, no builders.
Usage: naive_baseline.py CSDL OUTPUT_DIR
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
PRIMITIVES = {
    "Edm.String": "String", "Edm.Boolean": "Bool", "Edm.Int32": "Int32", "Edm.Int64": "Int64",
    "Edm.Int16": "Int16", "Edm.Byte": "UInt8", "Edm.SByte": "Int8", "Edm.Double": "Double",
    "Edm.Single": "Float", "Edm.Decimal": "Decimal", "Edm.Guid": "String", "Edm.Binary": "Data",
    "Edm.Date": "String", "Edm.DateTimeOffset": "Date", "Edm.TimeOfDay": "String", "Edm.Duration": "String",
}
KEYWORDS = {"class", "default", "protocol", "extension", "operator", "internal", "public", "private", "return",
            "where", "in", "is", "as", "self", "Type", "init", "subscript", "func", "var", "let", "struct", "enum",
            "case", "import", "static", "true", "false", "nil", "repeat", "while", "for", "if", "else", "switch",
            "break", "continue", "fallthrough", "guard", "defer", "do", "catch", "throw", "throws", "try",
            "typealias", "associatedtype", "inout", "super", "Any", "Self", "deinit", "fileprivate", "open",
            "rethrows", "precedencegroup", "Protocol"}
AVOID = {"Date", "Data", "URL", "String", "Type", "Error", "Result", "Set", "Array", "Dictionary", "Decimal",
         "Task", "Int", "Bool", "Double", "Float", "Protocol", "Self", "Any"}


def type_name(qualified, primary):
    namespace, _, name = qualified.rpartition(".")
    prefix = namespace[len(primary) + 1:] if namespace.startswith(primary + ".") else ("" if namespace == primary else namespace)
    words = re.split(r"[^A-Za-z0-9]+", prefix + "." + name)
    result = "".join(w[:1].upper() + w[1:] for w in words if w)
    return result + "Model" if result in AVOID else result


def member(name):
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    name = name[:1].lower() + name[1:]
    if name[:1].isdigit():
        name = "_" + name
    return f"`{name}`" if name in KEYWORDS else name


def main():
    source, output = sys.argv[1], sys.argv[2]
    root = ET.parse(source).getroot()
    schemas = list(root.iter(EDM + "Schema"))
    primary = schemas[0].get("Namespace")
    aliases = {s.get("Alias"): s.get("Namespace") for s in schemas if s.get("Alias")}

    def resolve(name):
        head, _, tail = name.rpartition(".")
        return aliases.get(head, head) + "." + tail

    structures, enums = {}, {}
    for schema in schemas:
        namespace = schema.get("Namespace")
        for kind in ("EntityType", "ComplexType"):
            for node in schema.findall(EDM + kind):
                structures[namespace + "." + node.get("Name")] = node
        for node in schema.findall(EDM + "EnumType"):
            enums[namespace + "." + node.get("Name")] = node

    def swift_type(edm):
        if edm.startswith("Collection("):
            inner = swift_type(edm[11:-1])
            return f"[{inner}]" if inner else None
        if edm == "Edm.Stream":
            return None
        if edm.startswith("Edm."):
            return PRIMITIVES.get(edm, "String")
        return type_name(resolve(edm), primary)

    def properties(qualified, seen=()):
        node = structures[qualified]
        inherited = []
        base = node.get("BaseType")
        if base and resolve(base) in structures and qualified not in seen:
            inherited = properties(resolve(base), seen + (qualified,))
        own = [(p.get("Name"), p.get("Type")) for p in node.findall(EDM + "Property")]
        own += [(p.get("Name"), p.get("Type")) for p in node.findall(EDM + "NavigationProperty")]
        return inherited + own

    os.makedirs(output, exist_ok=True)
    header = "// Naive baseline for benchmarks only.\nimport Foundation\n\n"
    for qualified in structures:
        name = type_name(qualified, primary)
        lines, used = [], set()
        for prop, edm in properties(qualified):
            swift = swift_type(edm)
            label = member(prop)
            if swift is None or label in used:
                continue
            used.add(label)
            lines.append(f"    public var {label}: {swift}?")
        body = "\n".join(lines)
        with open(os.path.join(output, name + ".swift"), "w") as f:
            f.write(f"{header}public struct {name}: Codable, Sendable, Equatable {{\n{body}\n}}\n")
    for qualified, node in enums.items():
        name = type_name(qualified, primary)
        cases = []
        for m in node.findall(EDM + "Member"):
            label = member(m.get("Name"))
            cases.append(f"    case {label} = \"{m.get('Name')}\"")
        with open(os.path.join(output, name + ".swift"), "w") as f:
            f.write(f"{header}public enum {name}: String, Codable, Sendable {{\n" + "\n".join(cases) + "\n}\n")


if __name__ == "__main__":
    main()
