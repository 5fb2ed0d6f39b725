/// Copies and destroys of `Any?` without `Optional<Any>`'s value witnesses (four or five
/// indirect calls, on the seed API's hot path): an `Any?` is three words of value and one of
/// metadata, null for `nil`; a value is copied with one witness call, or none when its type is
/// trivial and inline.
@usableFromInline
enum AnyValue {
    /// The type metadata word of an `Any?`, nil for nil.
    @inlinable @inline(__always)
    static func metadata(_ value: UnsafePointer<Any?>) -> UnsafeRawPointer? {
        UnsafeRawPointer(value).load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
    }

    @inlinable @inline(__always)
    static func metadata(_ value: borrowing Any?) -> UnsafeRawPointer? {
        withUnsafePointer(to: value) { metadata($0) }
    }

    /// Whether a value of the type `metadata` describes is all in the existential's three words,
    /// with nothing to retain, release or copy by a witness: its type is trivial (POD) and stored
    /// inline. Read from the type's value witness table, one word before its metadata: its flags
    /// are the 32 bits after eight witnesses, the size and the stride (`IsNonPOD` 0x10000,
    /// `IsNonInline` 0x20000: the Swift ABI's TypeMetadata.rst; `AnyValueTests` pins them).
    @inlinable @inline(__always)
    static func isBitwise(type metadata: UnsafeRawPointer) -> Bool {
        let witnesses = metadata.load(fromByteOffset: -MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer.self)
        let flags = witnesses.load(fromByteOffset: 10 * MemoryLayout<UInt>.size, as: UInt32.self)
        return flags & 0x3_0000 == 0
    }

    @inlinable @inline(__always)
    static func copy(_ value: UnsafePointer<Any?>) -> Any? {
        copy(value, bitwise: isBitwise(value))
    }

    /// `copy(_:)` for a caller that has asked `isBitwise(value)` already.
    @inlinable @inline(__always)
    static func copy(_ value: UnsafePointer<Any?>, bitwise: Bool) -> Any? {
        _withUnprotectedUnsafeTemporaryAllocation(of: Any?.self, capacity: 1) { slot in
            let copy = slot.baseAddress.unsafelyUnwrapped
            initialize(copy, to: value, bitwise: bitwise)
            return copy.move()
        }
    }

    /// Whether the four words of `value` are the whole of it: nil, or a trivial inline value
    /// (`isBitwise(type:)` of its type).
    @inlinable @inline(__always)
    static func isBitwise(_ value: UnsafePointer<Any?>) -> Bool {
        guard let metadata = metadata(value) else { return true }
        return isBitwise(type: metadata)
    }

    /// Initialises `destination` (uninitialised memory) to a copy of `value`.
    @inlinable @inline(__always)
    static func initialize(_ destination: UnsafeMutablePointer<Any?>, to value: UnsafePointer<Any?>) {
        initialize(destination, to: value, bitwise: isBitwise(value))
    }

    /// `initialize(_:to:)` for a caller that has asked `isBitwise(value)` already.
    @inlinable @inline(__always)
    static func initialize(_ destination: UnsafeMutablePointer<Any?>, to value: UnsafePointer<Any?>, bitwise: Bool) {
        if bitwise { return UnsafeMutableRawPointer(destination).copyMemory(from: value, byteCount: MemoryLayout<Any?>.size) }
        UnsafeRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { value in
            _ = UnsafeMutableRawPointer(destination).initializeMemory(as: Any.self, to: value.pointee)
        }
    }

    @inlinable @inline(__always)
    static func copy(_ value: borrowing Any?) -> Any? {
        withUnsafePointer(to: value) { copy($0) }
    }

    /// Destroys the value at `value`, leaving the memory uninitialised.
    @inlinable @inline(__always)
    static func destroy(_ value: UnsafeMutablePointer<Any?>) {
        guard let metadata = metadata(value), !isBitwise(type: metadata) else { return }
        UnsafeMutableRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { _ = $0.deinitialize(count: 1) }
    }

    /// The value of an `Any?` as a `T` when its dynamic type is exactly `T`, read in place; nil
    /// for nil or any other type (the caller then casts). A cast asks the runtime, in several
    /// calls, what an `Any` holds; here it is a compare of two metadata pointers.
    @inlinable @inline(__always)
    static func exactly<T>(_ value: UnsafePointer<Any?>, as _: T.Type) -> T? {
        guard let metadata = metadata(value), metadata == unsafeBitCast(T.self, to: UnsafeRawPointer.self) else { return nil }
        // A value that fits the existential's three-word buffer (size, alignment, bitwise-takable: the
        // runtime's rule) is stored at its start: read it there. Others live in a box, opened as `T`.
        if MemoryLayout<T>.size <= 3 * MemoryLayout<UInt>.size, MemoryLayout<T>.alignment <= MemoryLayout<UInt>.alignment,
           _isBitwiseTakable(T.self) {
            return UnsafeRawPointer(value).load(as: T.self)
        }
        func read<U>(_ opened: borrowing U) -> T {
            withUnsafePointer(to: opened) { UnsafeRawPointer($0).assumingMemoryBound(to: T.self).pointee }
        }
        return UnsafeRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { read($0.pointee) }
    }
}
