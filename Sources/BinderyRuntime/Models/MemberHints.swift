import BinderyJSON
import Synchronization

/// Where payloads of one model type keep each declared field's member: one remembered position per field.
///
/// A service writes the members of every object of a type in the same order, so a property read looks at the
/// remembered position first and compares one key instead of scanning the object. A guess is always checked
/// against the key, and member names are distinct in a `JSONObject`, so a payload in another order costs a scan,
/// never a wrong value. Payloads that leave out optional members shift the positions after them: a miss costs
/// the scan a read always made before, and remembering the new position. Threads share the positions through
/// relaxed atomics: a position is a hint, so no read depends on another thread's write.
///
/// A copyable struct that owns an allocation, which is sound only because the allocation is never freed: every
/// copy points to the same slots for the life of the process.
@usableFromInline
struct MemberHints: @unchecked Sendable {
    // Every slot is an atomic, so sharing them is safe. Allocated once per schema and never freed, like its field
    // table: a property read then keeps a pointer to its slot without keeping the schema alive.
    @usableFromInline let positions: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let count: Int

    /// One slot per `Field`-sized step of a field table `tableSize` bytes long: a field's slot is its offset
    /// divided by the size of a `Field`.
    init(tableSize: Int) {
        count = Self.slotCount(tableSize: tableSize)
        positions = .allocate(capacity: count)
        for slot in 0..<count { (positions + slot).initialize(to: Atomic(0)) }
    }

    /// The size of every `Field`: its value type is only a type parameter, so it does not change the layout.
    @usableFromInline static var fieldStride: Int { MemoryLayout<Field<String>>.stride }

    /// How many `Field`-sized slots a table `tableSize` bytes long has: one per field, and one for an empty table.
    /// A model's kept values (`ValueCache`) use the same slots.
    @inlinable
    static func slotCount(tableSize: Int) -> Int { max(1, (tableSize + fieldStride - 1) / fieldStride) }
}

/// One field's remembered position: a pointer into its schema's `MemberHints`, which are never freed.
@usableFromInline
struct MemberHint {
    @usableFromInline let position: UnsafeMutablePointer<Atomic<Int>>

    /// The hint of the field at `offset` bytes into the table `hints` belongs to; nil past its end.
    @inlinable
    init?(_ hints: MemberHints, fieldOffset offset: Int) {
        let slot = offset / MemberHints.fieldStride
        guard slot < hints.count else { return nil }
        position = hints.positions + slot
    }

    @inlinable
    var guess: Int { position.pointee.load(ordering: .relaxed) }

    @inlinable
    func remember(_ found: Int) { position.pointee.store(found, ordering: .relaxed) }
}

extension JSONObject {
    /// The value of `field`'s member as the field reads it (strictly or loosely), converted where it lies in the
    /// object (copying it out would cost a retain and a release); nil when the member is absent. Looks at the hinted
    /// position first.
    ///
    /// The field is read through a pointer (into the schema's table, which is never freed): a `Field` or `String`
    /// argument would be a copy, retained and released on every read, since the hint's atomics keep the compiler
    /// from borrowing it.
    @inlinable @inline(__always)
    func value<Value>(of field: UnsafePointer<Field<Value>>, hint: MemberHint?) -> Value? {
        members.withUnsafeBufferPointer { members in
            let length = field.pointee.name.utf8.count
            func convert(_ value: JSONValue) -> Value? {
                field.pointee.isLoose ? Value(looseJSON: value) : Value(json: value)
            }
            if let hint {
                let guess = hint.guess
                // The length too, as the scan compares it: a name that is only canonically equivalent (the Kelvin
                // sign for "K") must not match here when the scan would not match it.
                if guess < members.count, members[guess].key == field.pointee.name,
                    members[guess].key.utf8.count == length
                {
                    return convert(members[guess].value)
                }
            }
            // Lengths first: they are known without reading the text, and differ for most members.
            for index in members.indices
            where members[index].key.utf8.count == length && members[index].key == field.pointee.name {
                hint?.remember(index)
                return convert(members[index].value)
            }
            return nil
        }
    }
}
