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
    /// The slots, nil until the first read: a count, the values kept aside (`keptAside`), then one slot per
    /// `Field`-sized step of the field table. The header lives there rather than here: an object of one stored word
    /// is the smallest the allocator hands out, and every decoded model has one.
    @usableFromInline let slots = Atomic<UnsafeMutableRawPointer?>(nil)

    /// A slot: a state word, then the value. The state is 0 (empty), 1 (being filled), 2 (filled with a value that
    /// needs no destroying: a number, a date, a Boolean) or else the type of what the slot holds, which `deinit`
    /// destroys.
    @inlinable static var slotSize: Int { 24 }
    @inlinable static var valueOffset: Int { 8 }
    /// The slot count's word and the values kept aside, before the first slot.
    @inlinable static var headerSize: Int { 16 }
    @inlinable static var asideOffset: Int { 8 }
    @inlinable static var empty: Int { 0 }
    @inlinable static var filling: Int { 1 }
    @inlinable static var filledTrivially: Int { 2 }

    /// Whether a state says the slot holds a value (any state but empty and filling; a type's address compared
    /// without sign).
    @inlinable @inline(__always)
    static func isFilled(_ state: Int) -> Bool { UInt(bitPattern: state) > UInt(filling) }

    @usableFromInline
    init() {}

    deinit { clearSlots() }

    /// Drops every value: only for a cache no other copy of the model shares (see `Model.storage`).
    @usableFromInline
    func clear() { clearSlots() }

    private func clearSlots() {
        // A load, not an exchange: no other copy holds this cache now, and most models are never read, so most
        // caches end here with a plain load.
        guard let base = slots.load(ordering: .acquiring) else { return }
        slots.store(nil, ordering: .relaxed)
        for slot in 0..<base.load(as: Int.self) {
            let place = Self.place(of: slot, in: base)
            // Acquiring: the slot may have been filled by another thread, through a copy since dropped.
            let state = Self.state(place).pointee.load(ordering: .acquiring)
            guard Self.isFilled(state), state != Self.filledTrivially else { continue }
            Self.destroy(unsafeBitCast(state, to: Any.Type.self), at: place + Self.valueOffset)
        }
        if let aside = Self.asideWord(base).pointee.load(ordering: .acquiring) {
            Unmanaged<AsideValues>.fromOpaque(aside).release()
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
        guard Self.isFilled(Self.state(place).pointee.load(ordering: .acquiring)) else { return nil }
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
        // Zeroed memory: every state word reads `empty` and the aside word nil (an `Atomic` is its value's bytes).
        guard let fresh = calloc(1, Self.headerSize + count * Self.slotSize) else {
            fatalError("out of memory for a model's values")
        }
        fresh.storeBytes(of: count, as: Int.self)
        (fresh + Self.asideOffset).bindMemory(to: Atomic<UnsafeMutableRawPointer?>.self, capacity: 1)
        for slot in 0..<count { Self.place(of: slot, in: fresh).bindMemory(to: Atomic<Int>.self, capacity: 1) }
        let (installed, current) = slots.compareExchange(
            expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
        if installed { return fresh }
        free(fresh)
        return current!
    }

    private static func asideWord(_ base: UnsafeMutableRawPointer) -> UnsafeMutablePointer<
        Atomic<UnsafeMutableRawPointer?>
    > {
        (base + asideOffset).assumingMemoryBound(to: Atomic<UnsafeMutableRawPointer?>.self)
    }

    /// The value kept for `key`, a field without a slot (see `Model.keepComputed`): converted by `convert` on the
    /// first read and kept, boxed so that it stays where it is, for the life of the cache.
    @usableFromInline
    func keptAside<Held>(for key: AnyKeyPath, slotCount: Int, convert: () -> Held) -> UnsafePointer<Held> {
        let word = Self.asideWord(slotsAllocated(count: slotCount))
        var opaque = word.pointee.load(ordering: .acquiring)
        if opaque == nil {
            let fresh = Unmanaged.passRetained(AsideValues()).toOpaque()
            let (installed, current) = word.pointee.compareExchange(
                expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
            if installed {
                opaque = fresh
            } else {
                Unmanaged<AsideValues>.fromOpaque(fresh).release()
                opaque = current
            }
        }
        let aside = Unmanaged<AsideValues>.fromOpaque(opaque!).takeUnretainedValue()
        let key = AsideValues.Key(path: key)
        if let kept = aside.values.withLock({ $0[key] }) as? Boxed<Held> { return UnsafePointer(kept.value) }
        let converted = Boxed(convert())
        // Another reader may have kept one meanwhile: the first one kept is every reader's.
        let kept = aside.values.withLock { values in
            if let earlier = values[key] { return earlier }
            values[key] = converted
            return converted
        }
        return UnsafePointer((kept as! Boxed<Held>).value)
    }
}

/// The values of fields without a slot, by key path.
final class AsideValues: Sendable {
    /// A key path is immutable, and its `Hashable` conformance reads only that.
    struct Key: Hashable, @unchecked Sendable {
        let path: AnyKeyPath
    }

    let values = Mutex<[Key: any AnyBoxed]>([:])
}

/// A `Boxed` of any type.
protocol AnyBoxed: AnyObject, Sendable {}

/// A value too large for a slot, kept on the heap at a fixed address.
@usableFromInline
final class Boxed<Held>: AnyBoxed, @unchecked Sendable {
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
