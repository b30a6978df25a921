import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One model's declared fields as Swift values, each converted from the JSON on its first read and kept, so that a
/// later `item.name` is a load from a fixed place instead of a search of the members and a conversion.
///
/// The JSON stays the model's state (unknown members, member order and number text survive a round trip); this is
/// a cache of it, dropped whenever the members change. Slots are allocated on the first read, not at decode: a page
/// decoded and never read pays one small object per model, not a slot per field.
///
/// Copies of a model share their cache until one of them changes: a change to a shared cache's model gets a new
/// cache (see `Model.storage`). Threads share slots through atomics: a slot is filled once, by the reader that
/// claims it, and read only after it is published.
@usableFromInline
final class ValueCache: @unchecked Sendable {
    /// The slots, nil until the first read: a count, then one slot per `Field`-sized step of the field table.
    /// The count lives there rather than here: an object of one stored word is the smallest the allocator hands
    /// out, and every decoded model has one.
    @usableFromInline let slots = Atomic<UnsafeMutableRawPointer?>(nil)

    /// A slot: a state word, then the value. The state is 0 (empty), 1 (being filled), 2 (filled with a value that
    /// needs no destroying: a number, a date, a Boolean) or else the type of what the slot holds, which `deinit`
    /// destroys.
    @usableFromInline static var slotSize: Int { 24 }
    @usableFromInline static var valueOffset: Int { 8 }
    /// The slot count's word, before the first slot.
    @usableFromInline static var headerSize: Int { 8 }
    @usableFromInline static let empty = 0
    @usableFromInline static let filling = 1
    @usableFromInline static let filledTrivially = 2

    @usableFromInline
    init() {}

    deinit { clearSlots() }

    /// Drops every value: only for a cache no other copy of the model shares (see `Model.storage`).
    @usableFromInline
    func clear() { clearSlots() }

    private func clearSlots() {
        guard let base = slots.exchange(nil, ordering: .acquiring) else { return }
        for slot in 0..<base.load(as: Int.self) {
            let place = Self.place(of: slot, in: base)
            let state = Self.state(place).pointee.load(ordering: .relaxed)
            guard state > Self.filledTrivially else { continue }
            Self.destroy(unsafeBitCast(state, to: Any.Type.self), at: place + Self.valueOffset)
        }
        free(base)
    }

    private static func destroy<Held>(_ type: Held.Type, at place: UnsafeMutableRawPointer) {
        place.assumingMemoryBound(to: Held.self).deinitialize(count: 1)
    }

    @inlinable @inline(__always)
    static func place(of slot: Int, in base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + headerSize + slot * slotSize
    }

    @inlinable @inline(__always)
    static func state(_ place: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<Int>> {
        place.assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Whether a value of type `Held` lives in the slot itself; a larger one lives in a `Boxed` the slot holds.
    @inlinable @inline(__always)
    static func isInline<Held>(_ type: Held.Type) -> Bool {
        MemoryLayout<Held>.size <= slotSize - valueOffset && MemoryLayout<Held>.alignment <= valueOffset
    }

    /// The value in `slot` once it is filled; nil before. The fast path of every property read.
    @inlinable @inline(__always)
    func filled<Held>(_ slot: Int, as type: Held.Type) -> UnsafePointer<Held>? {
        guard let base = slots.load(ordering: .acquiring) else { return nil }
        let place = Self.place(of: slot, in: base)
        guard Self.state(place).pointee.load(ordering: .acquiring) > Self.filling else { return nil }
        return Self.value(in: place, as: Held.self)
    }

    @inlinable @inline(__always)
    static func value<Held>(in place: UnsafeMutableRawPointer, as type: Held.Type) -> UnsafePointer<Held> {
        if isInline(Held.self) {
            return UnsafePointer((place + valueOffset).assumingMemoryBound(to: Held.self))
        }
        return UnsafePointer((place + valueOffset).assumingMemoryBound(to: Boxed<Held>.self).pointee.value)
    }

    /// Fills `slot` of a model with `slotCount` slots with `value`, unless another reader filled or is filling it
    /// first, and returns where the slot's value lies: the value every reader of this slot gets from now on.
    @inlinable
    func fill<Held>(_ slot: Int, of slotCount: Int, with value: consuming Held) -> UnsafePointer<Held> {
        precondition(slot < slotCount, "a field beyond the end of its table")
        let place = Self.place(of: slot, in: slotsAllocated(count: slotCount))
        let state = Self.state(place)
        if state.pointee.compareExchange(expected: Self.empty, desired: Self.filling, ordering: .acquiring).exchanged {
            if Self.isInline(Held.self) {
                (place + Self.valueOffset).initializeMemory(as: Held.self, to: value)
                let filled =
                    _isPOD(Held.self) ? Self.filledTrivially : unsafeBitCast(Held.self as Any.Type, to: Int.self)
                state.pointee.store(filled, ordering: .releasing)
            } else {
                (place + Self.valueOffset).initializeMemory(as: Boxed<Held>.self, to: Boxed(value))
                state.pointee.store(unsafeBitCast(Boxed<Held>.self as Any.Type, to: Int.self), ordering: .releasing)
            }
        } else {
            // Another reader claimed it: it converted the same members to the same value and is copying it in.
            while state.pointee.load(ordering: .acquiring) == Self.filling { sched_yield() }
        }
        return Self.value(in: place, as: Held.self)
    }

    @usableFromInline
    func slotsAllocated(count: Int) -> UnsafeMutableRawPointer {
        if let base = slots.load(ordering: .acquiring) { return base }
        // Zeroed memory: every state word reads `empty` (an `Atomic<Int>` is its integer's bytes).
        guard let fresh = calloc(1, Self.headerSize + count * Self.slotSize) else {
            fatalError("out of memory for a model's values")
        }
        fresh.storeBytes(of: count, as: Int.self)
        let (installed, current) = slots.compareExchange(
            expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
        if installed { return fresh }
        free(fresh)
        return current!
    }
}

/// A value too large for a slot, kept on the heap at a fixed address.
@usableFromInline
final class Boxed<Held> {
    @usableFromInline let value: UnsafeMutablePointer<Held>

    @usableFromInline
    init(_ held: consuming Held) {
        value = .allocate(capacity: 1)
        value.initialize(to: held)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }
}
