/// Copies and destroys of `Any?` without `Optional<Any>`'s value witnesses (Swift's own take
/// four or five indirect calls, on the seed API's hot path). An `Any?` is laid out as an `Any`
/// (three words of value, one of type metadata) whose null metadata word means `nil`: the tag is
/// read here directly, and a value is copied or destroyed with one witness call.
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

    @inlinable @inline(__always)
    static func copy(_ value: UnsafePointer<Any?>) -> Any? {
        guard metadata(value) != nil else { return nil }
        return UnsafeRawPointer(value).withMemoryRebound(to: Any.self, capacity: 1) { .some($0.pointee) }
    }

    @inlinable @inline(__always)
    static func copy(_ value: borrowing Any?) -> Any? {
        withUnsafePointer(to: value) { copy($0) }
    }

    /// Destroys the value at `value`, leaving the memory uninitialised.
    @inlinable @inline(__always)
    static func destroy(_ value: UnsafeMutablePointer<Any?>) {
        guard metadata(value) != nil else { return }
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
