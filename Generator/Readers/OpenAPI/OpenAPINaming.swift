/// The few naming rules the OpenAPI reader needs. Names stay wire-ish; Swift naming is the emitter's business.
enum OpenAPINaming {
    /// `Sample Mail` → `sample.mail`: ASCII letters and digits, lowercased, other runs become one dot
    /// (a dotted namespace, like OData's `microsoft.graph`).
    static func namespaceSlug(_ title: String) -> String {
        var slug = ""
        var pendingDot = false
        for scalar in title.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                // A part that starts with a digit joins the part before it (`OpenAPI 3.0` → `openapi30`), as a
                // namespace's parts are identifiers.
                let startsWithDigit = ("0"..."9").contains(scalar)
                if pendingDot, !slug.isEmpty, !startsWithDigit { slug.append(".") }
                pendingDot = false
                slug.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            } else {
                pendingDot = true
            }
        }
        return slug
    }

    /// Whether a user-given namespace is dotted identifiers (`sample.mail`), as `QualifiedName` splits at the last dot.
    static func isValidNamespace(_ namespace: String) -> Bool {
        let parts = namespace.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { isIdentifierLike(String($0)) }
    }

    /// Letters, digits, `_` and `-`, not starting with a digit or `-`.
    static func isIdentifierLike(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
    }

    static func upperFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// `<Parent><Child>`: `thread` + `state` → `threadState`; the parent keeps its case, the child is capitalized.
    static func joined(_ parent: String, _ child: String) -> String {
        parent + upperFirst(child)
    }

    /// `threads` → `thread`, `indexes` → `index`. Only a final "s" (or the "es" after x, ch and sh) is dropped: a guess
    /// that is easy to predict, and `x-bindery-resource` overrides it.
    static func singular(_ segment: String) -> String {
        guard segment.count > 1, segment.hasSuffix("s") else { return segment }
        // `indexes`, `matches`, `wishes`: the "es" that `pluralOfKey` adds after these endings.
        if ["xes", "ches", "shes"].contains(where: { segment.hasSuffix($0) && segment.count > $0.count }) {
            return String(segment.dropLast(2))
        }
        return String(segment.dropLast())
    }

    /// What a key names, as a plural: `template_key` → `templates`, `taxonomy_id` → `taxonomies`.
    static func pluralOfKey(_ key: String) -> String {
        var stem = key
        for suffix in ["_key", "_id", "-id", "-key", "Id", "Key"]
        where stem.hasSuffix(suffix) && stem.count > suffix.count {
            stem = String(stem.dropLast(suffix.count))
            break
        }
        if stem.hasSuffix("s") { return stem }
        if stem.hasSuffix("x") || stem.hasSuffix("ch") || stem.hasSuffix("sh") { return stem + "es" }
        if stem.hasSuffix("y"), let before = stem.dropLast().last, !"aeiou".contains(before) {
            return stem.dropLast() + "ies"
        }
        return stem + "s"
    }
}

/// Hands out names that are unique within one kind (types, resources), ignoring case, since the emitter
/// changes case and `Thread`/`thread` would collide in Swift.
struct OpenAPINameRegistry {
    private var taken: Set<String> = []

    func isTaken(_ name: String) -> Bool { taken.contains(name.lowercased()) }

    /// Marks a name as used; returns false when it already was.
    @discardableResult
    mutating func reserve(_ name: String) -> Bool {
        taken.insert(name.lowercased()).inserted
    }

    /// The first of `name`, `name2`, `name3`, ... that is still free, reserved.
    mutating func unique(_ name: String) -> String {
        if reserve(name) { return name }
        var counter = 2
        while !reserve("\(name)\(counter)") { counter += 1 }
        return "\(name)\(counter)"
    }
}
