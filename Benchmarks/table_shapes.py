#!/usr/bin/env python3
"""Two shapes of field table, compiled side by side: what a release build pays per field.

`stored`: a struct of `public let` fields, as Bindery generates for small specs (each field compiles to a getter).
`tuple`: a caseless enum whose table is one labelled tuple, as Bindery generates for large ones (`"fieldTables"`); key
paths reach its elements the same way, so a user's `item.name` reads alike, but nothing per field is compiled. A
tuple element carries no doc comment.

Usage: Benchmarks/table_shapes.py [tables] [fields]   (default 50 tables of 40 fields)
Prints, per shape and configuration: wall seconds, peak memory, functions in the object code, and checks that a
read through dynamic member lookup gives the same answer in both.
"""
import os
import re
import subprocess
import sys
import tempfile

TABLES = int(sys.argv[1]) if len(sys.argv) > 1 else 50
FIELDS = int(sys.argv[2]) if len(sys.argv) > 2 else 40

# A stand-in for the runtime's `Model<Fields>`: storage by name, read through a key path into the table.
RUNTIME = """
public struct Field<Value>: Sendable { public let name: String; public init(_ name: String) { self.name = name } }
public protocol FieldSet: Sendable { associatedtype Table: Sendable; static var table: Table { get } }
@dynamicMemberLookup
public struct Model<S: FieldSet>: Sendable {
    public var storage: [String: String] = [:]
    public init() {}
    public subscript<T>(dynamicMember path: KeyPath<S.Table, Field<T>>) -> String? {
        storage[S.table[keyPath: path].name]
    }
}
"""


def field_type(index):
    return "String" if index % 2 == 0 else "Int64"


def stored():
    lines = [RUNTIME]
    for table in range(TABLES):
        lines.append(f"public typealias T{table} = Model<T{table}Fields>")
        lines.append(f"public struct T{table}Fields: FieldSet {{")
        lines.append(f"    public static let table = T{table}Fields()")
        for field in range(FIELDS):
            lines.append(f"    /// Field {field} of type {table}.")
            lines.append(f"    public let f{field}: Field<{field_type(field)}>")
        lines.append("    private init() {")
        lines += [f'        self.f{field} = Field("f{field}")' for field in range(FIELDS)]
        lines.append("    }")
        lines.append("}")
    return "\n".join(lines) + "\n"


def tuple_table():
    lines = [RUNTIME]
    for table in range(TABLES):
        types = ", ".join(f"f{field}: Field<{field_type(field)}>" for field in range(FIELDS))
        values = ", ".join(f'f{field}: Field("f{field}")' for field in range(FIELDS))
        lines.append(f"public typealias T{table} = Model<T{table}Fields>")
        lines.append(f"public enum T{table}Fields: FieldSet {{")
        lines.append(f"    public typealias Table = ({types})")
        lines.append(f"    public static let table: Table = ({values})")
        lines.append("}")
    return "\n".join(lines) + "\n"


def compile_library(folder, module, source, optimization):
    path = os.path.join(folder, f"{module}.swift")
    with open(path, "w") as file:
        file.write(source)
    library = os.path.join(folder, f"lib{module}.a")
    timing = os.path.join(folder, f"{module}.time")
    subprocess.run(
        ["/usr/bin/time", "-o", timing, "-f", "%e %M", "swiftc", optimization, "-parse-as-library",
         "-module-name", module, "-emit-module", "-emit-module-path", os.path.join(folder, f"{module}.swiftmodule"),
         "-emit-library", "-static", "-o", library, path],
        check=True, capture_output=True)
    seconds, kilobytes = open(timing).read().split()
    symbols = subprocess.run(["nm", library], check=True, capture_output=True, text=True).stdout
    functions = len(re.findall(r" [Tt] ", symbols))
    return float(seconds), int(kilobytes) / 1024, functions


def main():
    with tempfile.TemporaryDirectory() as folder:
        print(f"{TABLES} tables of {FIELDS} fields")
        for optimization in ["-O", "-Onone"]:
            for name, source in [("stored", stored()), ("tuple", tuple_table())]:
                module = f"{name.capitalize()}{'Release' if optimization == '-O' else 'Debug'}"
                seconds, mebibytes, functions = compile_library(folder, module, source, optimization)
                print(f"{optimization:6} {name:7} {seconds:6.2f} s  {mebibytes:6.0f} MiB  {functions} functions")
        # The same read through both shapes, compiled against the release libraries.
        use = os.path.join(folder, "use.swift")
        with open(use, "w") as file:
            file.write("import StoredRelease\nimport TupleRelease\n"
                       "var a = StoredRelease.T3(); a.storage[\"f7\"] = \"seven\"\n"
                       "var b = TupleRelease.T3(); b.storage[\"f7\"] = \"seven\"\n"
                       "print(a.f7 ?? \"nil\", b.f7 ?? \"nil\")\n")
        binary = os.path.join(folder, "use")
        subprocess.run(["swiftc", "-O", "-I", folder, "-L", folder, "-lStoredRelease", "-lTupleRelease", use,
                        "-o", binary], check=True, capture_output=True)
        read = subprocess.run([binary], check=True, capture_output=True, text=True).stdout.strip()
        print(f"item.f7 through each shape: {read}")
        if read != "seven seven":
            sys.exit("the two shapes read differently")


if __name__ == "__main__":
    main()
