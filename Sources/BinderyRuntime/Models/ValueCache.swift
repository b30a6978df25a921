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
/// Slots are given to fields in the order they are first read, not one per field of the type: a list that reads 8
/// of a driveItem's 36 fields keeps them side by side in 8 slots. A model gets room for as many fields as any model
/// of its type has had read (the schema's `fieldsReadHint`); a field read beyond that goes to a second block with
/// a slot for every field, allocated when first needed.
///
/// Copies of a model share their cache until one of them changes: a change to a shared cache's model gets a new
/// cache (see `Model.storage`). Threads share slots through atomics: a field's position is given once, a slot is
/// filled once, by the reader that claims it, and read only after it is published.
@usableFromInline
final class ValueCache: @unchecked Sendable {
    /// The slots, nil until the first read: the header (below), one position byte per field of the table, then
    /// `capacity` slots. The header lives there rather than here: an object of one stored word is the smallest the
    /// allocator hands out, and every decoded model has one.
    @usableFromInline let slots = Atomic<UnsafeMutableRawPointer?>(nil)

    /// The header's words: the slots' capacity and the table's field count (both fixed), the next position to
    /// give, the values kept aside (`keptAside`), and the block of overflow slots, one per field.
    @inlinable static var capacityOffset: Int { 0 }
    @inlinable static var fieldCountOffset: Int { 8 }
    @inlinable static var nextOffset: Int { 16 }
    @inlinable static var asideOffset: Int { 24 }
    @inlinable static var overflowOffset: Int { 32 }
    @inlinable static var headerSize: Int { 40 }

    /// A field's position byte: 0 before it has a slot, then its slot's position + 1, or `inOverflow` when its slot
    /// is in the overflow block (at the field's index).
    @inlinable static var inOverflow: UInt8 { 255 }
    @inlinable static var maximumCapacity: Int { 254 }

    /// A slot: a state word, then the value. The state is 0 (empty), 1 (being filled), 2 (filled with a value that
    /// needs no destroying: a number, a date, a Boolean) or else the type of what the slot holds, which `deinit`
    /// destroys.
    @inlinable static var slotSize: Int { 24 }
    @inlinable static var valueOffset: Int { 8 }
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
        let fieldCount = base.load(fromByteOffset: Self.fieldCountOffset, as: Int.self)
        Self.destroyFilled(base + Self.slotsStart(fieldCount: fieldCount), count: Self.capacity(base))
        if let overflow = Self.word(Self.overflowOffset, of: base).pointee.load(ordering: .acquiring) {
            Self.destroyFilled(overflow, count: fieldCount)
            free(overflow)
        }
        if let aside = Self.word(Self.asideOffset, of: base).pointee.load(ordering: .acquiring) {
            Unmanaged<AsideValues>.fromOpaque(aside).release()
        }
        free(base)
    }

    private static func destroyFilled(_ first: UnsafeMutableRawPointer, count: Int) {
        for slot in 0..<count {
            let place = first + slot * slotSize
            // Acquiring: the slot may have been filled by another thread, through a copy since dropped.
            let state = Self.state(place).pointee.load(ordering: .acquiring)
            guard isFilled(state), state != filledTrivially else { continue }
            destroy(unsafeBitCast(state, to: Any.Type.self), at: place + valueOffset)
        }
    }

    private static func destroy<Held>(_ type: Held.Type, at place: UnsafeMutableRawPointer) {
        place.assumingMemoryBound(to: Held.self).deinitialize(count: 1)
    }

    /// Where the slots begin: after the header and the position bytes, a word apart.
    @inlinable @inline(__always)
    static func slotsStart(fieldCount: Int) -> Int { headerSize + ((fieldCount + 7) & ~7) }

    @inlinable @inline(__always)
    static func capacity(_ base: UnsafeMutableRawPointer) -> Int {
        base.load(fromByteOffset: capacityOffset, as: Int.self)
    }

    @inlinable @inline(__always)
    static func positionByte(of field: Int, in base: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<UInt8>> {
        (base + headerSize + field).assumingMemoryBound(to: Atomic<UInt8>.self)
    }

    @inlinable @inline(__always)
    static func state(_ place: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<Int>> {
        place.assumingMemoryBound(to: Atomic<Int>.self)
    }

    private static func word(_ offset: Int, of base: UnsafeMutableRawPointer) -> UnsafeMutablePointer<
        Atomic<UnsafeMutableRawPointer?>
    > {
        (base + offset).assumingMemoryBound(to: Atomic<UnsafeMutableRawPointer?>.self)
    }

    /// Whether a value of type `Held` lives in the slot itself; a larger one lives in a `Boxed` the slot holds.
    @inlinable @inline(__always)
    static func isInline<Held>(_ type: Held.Type) -> Bool {
        MemoryLayout<Held>.size <= slotSize - valueOffset && MemoryLayout<Held>.alignment <= valueOffset
    }

    /// The value of `field` (of a table of `fieldCount`) once it is kept; nil before, and for a field whose slot is
    /// in the overflow block. The fast path of every property read.
    @inlinable @inline(__always)
    func filled<Held>(_ field: Int, inTableOf fieldCount: Int, as type: Held.Type) -> UnsafePointer<Held>? {
        guard let base = slots.load(ordering: .acquiring) else { return nil }
        // Relaxed: a position is given once, and the slot's state, loaded acquiring, publishes its value.
        let position = Int(Self.positionByte(of: field, in: base).pointee.load(ordering: .relaxed))
        // Neither 0 (no slot yet) nor `inOverflow`: compared without sign, 0 - 1 is past the maximum.
        guard UInt(bitPattern: position &- 1) < UInt(Self.maximumCapacity) else { return nil }
        let place = base + Self.slotsStart(fieldCount: fieldCount) + (position - 1) * Self.slotSize
        return Self.filledValue(at: place, as: Held.self)
    }

    /// The value in the slot at `place` once it is filled; nil before.
    @inlinable @inline(__always)
    static func filledValue<Held>(at place: UnsafeMutableRawPointer, as type: Held.Type) -> UnsafePointer<Held>? {
        guard isFilled(state(place).pointee.load(ordering: .acquiring)) else { return nil }
        return value(in: place, as: Held.self)
    }

    @inlinable @inline(__always)
    static func value<Held>(in place: UnsafeMutableRawPointer, as type: Held.Type) -> UnsafePointer<Held> {
        if isInline(Held.self) {
            return UnsafePointer((place + valueOffset).assumingMemoryBound(to: Held.self))
        }
        return UnsafePointer((place + valueOffset).assumingMemoryBound(to: Boxed<Held>.self).pointee.value)
    }

    /// The slot of `field`, a table of `fieldCount`, given a position on the field's first read.
    @usableFromInline
    func place(of field: Int, inTableOf fieldCount: Int, schema: ModelSchema) -> UnsafeMutableRawPointer {
        precondition(field < fieldCount, "a field beyond the end of its table")
        let base = slotsAllocated(fieldCount: fieldCount, schema: schema)
        let byte = Self.positionByte(of: field, in: base)
        var position = byte.pointee.load(ordering: .relaxed)
        if position == 0 {
            let taken = Self.next(base).pointee.wrappingAdd(1, ordering: .relaxed).oldValue
            // A capacity is at most `maximumCapacity` (254), so a position + 1 fits in the byte below `inOverflow`.
            let candidate = taken < Self.capacity(base) ? UInt8(taken + 1) : Self.inOverflow
            // Another reader of the same field may have given it one meanwhile: then `taken` stays unused.
            let (given, current) = byte.pointee.compareExchange(expected: 0, desired: candidate, ordering: .relaxed)
            position = given ? candidate : current
            // Models of this type allocated from now on have room for every field this one has read.
            if given { Self.raise(schema.fieldsReadHint, to: taken + 1) }
        }
        if position == Self.inOverflow { return overflow(of: base, fieldCount: fieldCount) + field * Self.slotSize }
        return base + Self.slotsStart(fieldCount: fieldCount) + (Int(position) - 1) * Self.slotSize
    }

    private static func raise(_ hint: borrowing Atomic<Int>, to count: Int) {
        var seen = hint.load(ordering: .relaxed)
        while seen < count {
            let (raised, current) = hint.compareExchange(expected: seen, desired: count, ordering: .relaxed)
            if raised { return }
            seen = current
        }
    }

    private static func next(_ base: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<Int>> {
        (base + nextOffset).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// The overflow block: a slot for every field, by index.
    private func overflow(of base: UnsafeMutableRawPointer, fieldCount: Int) -> UnsafeMutableRawPointer {
        let word = Self.word(Self.overflowOffset, of: base)
        if let block = word.pointee.load(ordering: .acquiring) { return block }
        let fresh = Self.zeroedSlots(count: fieldCount, after: 0)
        let (installed, current) = word.pointee.compareExchange(
            expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
        if installed { return fresh }
        free(fresh)
        return current!
    }

    /// Zeroed memory for `count` slots after `offset` bytes: every state word reads `empty` (an `Atomic` is its
    /// value's bytes).
    private static func zeroedSlots(count: Int, after offset: Int) -> UnsafeMutableRawPointer {
        guard let fresh = calloc(1, offset + count * slotSize) else { fatalError("out of memory for a model's values") }
        for slot in 0..<count { (fresh + offset + slot * slotSize).bindMemory(to: Atomic<Int>.self, capacity: 1) }
        return fresh
    }

    /// Fills the slot at `place` with `value`, unless another reader filled or is filling it first, and returns
    /// where the slot's value lies: the value every reader of this slot gets from now on.
    @inlinable
    static func fill<Held>(_ place: UnsafeMutableRawPointer, with value: consuming Held) -> UnsafePointer<Held> {
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

    private func slotsAllocated(fieldCount: Int, schema: ModelSchema) -> UnsafeMutableRawPointer {
        if let base = slots.load(ordering: .acquiring) { return base }
        // Room for as many fields as any model of this type has had read, in steps of 4.
        let hint = schema.fieldsReadHint.load(ordering: .relaxed)
        let capacity = min((max(hint, 1) + 3) & ~3, fieldCount, Self.maximumCapacity)
        let start = Self.slotsStart(fieldCount: fieldCount)
        let fresh = Self.zeroedSlots(count: capacity, after: start)
        fresh.storeBytes(of: capacity, toByteOffset: Self.capacityOffset, as: Int.self)
        fresh.storeBytes(of: fieldCount, toByteOffset: Self.fieldCountOffset, as: Int.self)
        (fresh + Self.nextOffset).bindMemory(to: Atomic<Int>.self, capacity: 1)
        (fresh + Self.asideOffset).bindMemory(to: Atomic<UnsafeMutableRawPointer?>.self, capacity: 2)
        (fresh + Self.headerSize).bindMemory(to: Atomic<UInt8>.self, capacity: fieldCount)
        let (installed, current) = slots.compareExchange(
            expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
        if installed { return fresh }
        free(fresh)
        return current!
    }

    /// The value kept for `key`, a field without a slot (see `Model.keepComputed`): converted by `convert` on the
    /// first read and kept, boxed so that it stays where it is, for the life of the cache.
    @usableFromInline
    func keptAside<Held>(
        for key: AnyKeyPath, inTableOf fieldCount: Int, schema: ModelSchema, convert: () -> Held
    ) -> UnsafePointer<Held> {
        let word = Self.word(Self.asideOffset, of: slotsAllocated(fieldCount: fieldCount, schema: schema))
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
