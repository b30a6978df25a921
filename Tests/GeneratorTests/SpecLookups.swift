import BinderySpec

extension ServiceSpec {
    func structure(_ name: String) -> StructureSpec? {
        structures.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }

    func enumeration(_ name: String) -> EnumSpec? {
        enums.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }

    func resource(_ name: String) -> ResourceSpec? {
        resources.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }
}

extension StructureSpec {
    func property(_ name: String) -> PropertySpec? {
        properties.first { $0.name == name }
    }
}

extension ResourceSpec {
    func child(_ name: String) -> ChildSpec? { children.first { $0.name == name } }
    func operation(_ name: String) -> OperationSpec? { operations.first { $0.name == name } }
    func collectionOperation(_ name: String) -> OperationSpec? {
        collectionOperations.first { $0.name == name }
    }
}

extension ServiceSpec {
    func structure(qualified name: String) -> StructureSpec? {
        structures.first { $0.name.description == name }
    }

    func resource(qualified name: String) -> ResourceSpec? {
        resources.first { $0.name.description == name }
    }
}
