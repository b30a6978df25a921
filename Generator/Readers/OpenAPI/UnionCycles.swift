import BinderySpec

/// Union members that lead back to their union through unions alone, found and dropped after every schema is read.
enum UnionCycles {
    /// A union member that is a union leading back to this one through unions alone (`A` is a `B` or a string, `B`
    /// an `A` or a number; or `A` a member of itself) describes no value of its own, and a decoder would try it
    /// without end: such members are dropped, one at a time in document order, with a warning.
    static func dropMembers(of choices: inout [ChoiceSpec], warn: (String, SourceLocation?) -> Void) {
        var position: [QualifiedName: Int] = [:]
        for index in choices.indices { position[choices[index].name] = index }
        func reaches(_ start: QualifiedName, _ goal: QualifiedName) -> Bool {
            var stack = [start]
            var seen: Set<QualifiedName> = []
            while let next = stack.popLast() {
                if next == goal { return true }
                guard seen.insert(next).inserted, let index = position[next] else { continue }
                for member in choices[index].members {
                    if case .named(let name) = member.type, position[name] != nil { stack.append(name) }
                }
            }
            return false
        }
        for index in choices.indices {
            let choice = choices[index]
            // One member at a time, so that dropping one can spare the next.
            for member in choice.members {
                guard case .named(let name) = member.type, position[name] != nil, reaches(name, choice.name) else {
                    continue
                }
                warn(
                    "a member of the union '\(choice.name.name)' leads back to it through unions alone (\(name.name)); dropped",
                    choice.location)
                let kept = choices[index].members.filter { $0.type != member.type }
                choices[index].members = kept
            }
        }
    }
}
