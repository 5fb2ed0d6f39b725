/// Copies and destroys of `Any?` without `Optional<Any>`'s value witnesses.
///
/// What Swift emits for a copy or destroy of an `Any?` calls `Optional<Any>`'s generic value
/// witnesses, which ask the existential for its tag and then call the payload type's witness:
/// four or five indirect calls, each way, on the seed API's hot path. An `Any?` is
/// laid out as an `Any` (three words of value, one of type metadata) whose null metadata
/// word means `nil`, so the tag is read here directly and a non-nil value is copied or
/// destroyed as the `Any` it holds: one call, into the payload type's own witness.
@usableFromInline
enum AnyValue {
    /// The type metadata word of an `Any?`, nil for nil.
    @inlinable @inline(__always)
    static func metadata(_ value: UnsafePointer<Any?>) -> UnsafeRawPointer? {
        UnsafeRawPointer(value).load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
    }

    /// The type metadata word of an `Any?`, nil for nil.
    @inline(__always)
    static func metadata(_ value: borrowing Any?) -> UnsafeRawPointer? {
        withUnsafePointer(to: value) { metadata($0) }
    }

    /// A copy of the value at `value`.
    @inline(__always)
    static func copy(_ value: UnsafePointer<Any?>) -> Any? {
        guard metadata(value) != nil else { return nil }
        return UnsafeRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { .some($0.pointee) }
    }

    /// A copy of `value`.
    @inline(__always)
    static func copy(_ value: borrowing Any?) -> Any? {
        withUnsafePointer(to: value) { copy($0) }
    }

    /// Destroys the value at `value`, leaving the memory uninitialised.
    @inline(__always)
    static func destroy(_ value: UnsafeMutablePointer<Any?>) {
        guard metadata(value) != nil else { return }
        UnsafeMutableRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { _ = $0.deinitialize(count: 1) }
    }

    /// The value of an `Any?` as a `T` when its dynamic type is exactly `T`, read in place; nil
    /// for nil or any other type (the caller then casts: `as? T` also unwraps, bridges and
    /// converts, which is what costs). A cast asks the runtime, in several calls, what an
    /// `Any` holds; here the answer is a compare of two metadata pointers.
    @inlinable @inline(__always)
    static func exactly<T>(_ value: UnsafePointer<Any?>, as _: T.Type) -> T? {
        guard let metadata = metadata(value), metadata == unsafeBitCast(T.self, to: UnsafeRawPointer.self) else { return nil }
        // A value that fits the existential's three-word buffer is stored in it, at its start
        // (the runtime's rule for an `Any`: the size and alignment fit, and the value can be
        // moved as bytes): read it there. Others live in a box: opened, the type being `T`.
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
