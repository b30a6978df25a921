#!/usr/bin/env python3
"""The naive baseline Bindery's Graph output is measured against (see BENCHMARKS.md).

What most generators produce: one file per type, one struct per entity/complex type with every property
optional and synthesized Codable, inherited properties flattened, String-backed Codable enums, no builders and no
navigation properties. A struct cannot contain itself, so a property on a cycle of struct types (an error whose
`innerError` is an error) is boxed in a small `Indirect` class, as generators that emit structs must do.
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


INDIRECT = """// Naive baseline for benchmarks only.
public final class Indirect<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
    public init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    public static func == (lhs: Indirect, rhs: Indirect) -> Bool { lhs.value == rhs.value }
}
"""


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: node → component number."""
    index, low, on_stack, stack, component = {}, {}, set(), [], {}
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                while True:
                    member_node = stack.pop(); on_stack.discard(member_node)
                    component[member_node] = node
                    if member_node == node:
                        break
    return component


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
        return inherited + own

    # Edges between struct types through single-valued properties; an edge inside a strongly connected
    # component (or to itself) would make a struct contain itself.
    graph = {q: set() for q in structures}
    for q in structures:
        for _, edm in properties(q):
            if edm and not edm.startswith("Collection(") and not edm.startswith("Edm.") and resolve(edm) in structures:
                graph[q].add(resolve(edm))
    component = strongly_connected(graph)

    def on_cycle(owner, edm):
        target = resolve(edm)
        return target in structures and not edm.startswith("Collection(") and (
            target == owner or component[target] == component[owner])

    os.makedirs(output, exist_ok=True)
    with open(os.path.join(output, "Indirect.swift"), "w") as f:
        f.write(INDIRECT)
    header = "// Naive baseline for benchmarks only.\nimport Foundation\n\n"
    for qualified in structures:
        name = type_name(qualified, primary)
        lines, used = [], set()
        for prop, edm in properties(qualified):
            swift = swift_type(edm)
            label = member(prop)
            if swift is None or label in used:
                continue
            if not edm.startswith("Edm.") and on_cycle(qualified, edm):
                swift = f"Indirect<{swift}>"
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
        if not cases:  # Graph has member-less enums; a raw-value enum needs a case
            cases.append('    case unknownFutureValue = "unknownFutureValue"')
        with open(os.path.join(output, name + ".swift"), "w") as f:
            f.write(f"{header}public enum {name}: String, Codable, Sendable {{\n" + "\n".join(cases) + "\n}\n")


if __name__ == "__main__":
    main()
